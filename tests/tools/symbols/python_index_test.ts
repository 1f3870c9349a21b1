/**
 * The Python resolver's per-worker index on its own: facts kept by (path,
 * mtime, size), parsed again when either changes, within a budget that
 * never evicts what the current call uses.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { refsNamed } from "../../../tools/python/_resolve_facts.ts";
import { PyIndex } from "../../../tools/python/_resolve_index.ts";

const SOURCE = "def f(x):\n    return x\n\n\ny = f(1)\n";

Deno.test("the Python index keeps facts by version, within its budget", async (t) => {
  await using root = await tempDir();
  const ctx = await toolContext(root.path);

  await t.step("a file's facts are kept until its mtime or size changes", async () => {
    const index = new PyIndex();
    await index.ready(ctx);
    const facts = index.add("/p/a.py", 1, SOURCE.length, SOURCE);
    assertEquals(refsNamed(facts, "f").map((ref) => ref.role), ["def", "call"]);
    assert(index.cached("/p/a.py", 1, SOURCE.length) === facts, "the same facts, not parsed again");
    assertEquals(index.cached("/p/a.py", 2, SOURCE.length), undefined);
    assertEquals(index.cached("/p/a.py", 1, SOURCE.length + 1), undefined);
  });

  await t.step(
    "past the budget, older calls' files go first, the current call's never",
    async () => {
      // The budget counts source bytes: room for two files.
      const SIZE = SOURCE.length;
      const index = new PyIndex(SIZE * 2);
      await index.ready(ctx);
      index.add("/p/a.py", 1, SIZE, SOURCE);
      index.add("/p/b.py", 1, SIZE, SOURCE);
      await index.ready(ctx); // a new call
      assert(index.cached("/p/b.py", 1, SIZE), "b is used by this call");
      index.add("/p/c.py", 1, SIZE, SOURCE);
      assertEquals(index.cached("/p/a.py", 1, SIZE), undefined, "a made room");
      assert(index.cached("/p/b.py", 1, SIZE) && index.cached("/p/c.py", 1, SIZE));
      const facts = index.add("/p/d.py", 1, SIZE, SOURCE);
      assertEquals(refsNamed(facts, "y").length, 1, "its facts are returned all the same");
      assertEquals(
        index.cached("/p/d.py", 1, SIZE),
        undefined,
        "not kept: b and c are this call's",
      );
      assert(index.cached("/p/b.py", 1, SIZE) && index.cached("/p/c.py", 1, SIZE));
    },
  );

  await t.step("a file deeper than any recursive walk survives is indexed", async () => {
    const index = new PyIndex();
    await index.ready(ctx);
    const deep = `x = ${"(".repeat(20_000)}f(1)${")".repeat(20_000)}\n`;
    const facts = index.add("/p/deep.py", 1, deep.length, deep);
    assertEquals(refsNamed(facts, "f").map((ref) => ref.role), ["call"]);
  });
});
