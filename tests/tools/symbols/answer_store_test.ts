/**
 * Kept answers on their own (`tools/symbols/_answer_store.ts`): read back by
 * another store on the same folder (a restart), keyed by the whole question,
 * an answer too large to keep is not kept (nor an older one left for it),
 * and a damaged file is no answer.
 */

import { assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { AnswerStore } from "../../../tools/symbols/_answer_store.ts";

Deno.test("answers are kept by question, in memory and on disk", async (t) => {
  await using dir = await tempDir();
  const folder = `${dir.path}/answers`;
  const first = new AnswerStore<{ sites: string[] }>(folder);
  first.put("python|/p|/p/a.py|f", { sites: ["a.py:1"] });

  await t.step("another store on the folder reads it back; another question has none", () => {
    const second = new AnswerStore<{ sites: string[] }>(folder);
    assertEquals(second.get("python|/p|/p/a.py|f"), { sites: ["a.py:1"] });
    assertEquals(second.get("python|/p|/p/a.py|g"), undefined);
  });

  await t.step("an answer too large to keep is not kept, and the older one goes", () => {
    first.put("python|/p|/p/a.py|f", {
      sites: Array.from({ length: 500_000 }, (_, i) => `a.py:${i}`),
    });
    assertEquals(first.get("python|/p|/p/a.py|f"), undefined);
    assertEquals(new AnswerStore(folder).get("python|/p|/p/a.py|f"), undefined);
  });

  await t.step("a damaged file is no answer", async () => {
    first.put("python|/p|/p/b.py|h", { sites: ["b.py:2"] });
    for (const entry of Deno.readDirSync(folder)) {
      await Deno.writeTextFile(`${folder}/${entry.name}`, "{ not json");
    }
    assertEquals(new AnswerStore(folder).get("python|/p|/p/b.py|h"), undefined);
  });

  await t.step("without a folder, answers live in memory only", () => {
    const memory = new AnswerStore<number>(undefined);
    memory.put("q", 1);
    assertEquals(memory.get("q"), 1);
  });
});
