/**
 * The facts kept on disk read back as the facts the parser made: every
 * scope, binding, use, attribute, call, import and string, maps and all, on
 * 40 modules of the standard library (`_stdlib.ts`'s sample), through a
 * record as the store writes it (each part decoded at its first use).
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { PY_FACTS_CODEC } from "../../../tools/python/_facts_codec.ts";
import { PyIndex } from "../../../tools/python/_resolve_index.ts";
import { FactsStore } from "../../../tools/symbols/_facts_store.ts";
import { plainFacts } from "./_plain_facts.ts";
import { SAMPLE, stdlibDir } from "./_stdlib.ts";

Deno.test("Python facts kept on disk read back equal, on 40 standard library modules", async () => {
  await using dir = await tempDir();
  const ctx = await toolContext(dir.path);
  const index = new PyIndex();
  await index.ready(ctx);
  const store = new FactsStore(`${dir.path}/facts`, "python", PY_FACTS_CODEC);
  const stdlib = await stdlibDir();
  for (const module of SAMPLE) {
    const text = await Deno.readTextFile(`${stdlib}/${module}`);
    const facts = index.add(`/p/${module}`, 1, text.length, text);
    store.save(`/p/${module}`, 1, text.length, facts);
    const back = store.load(`/p/${module}`, 1, text.length);
    assert(back, `${module} read back`);
    assertEquals(plainFacts(back), plainFacts(facts), module);
  }
});

Deno.test("a kept record cut short, or of another version, is a miss", async () => {
  await using dir = await tempDir();
  const ctx = await toolContext(dir.path);
  const index = new PyIndex();
  await index.ready(ctx);
  const store = new FactsStore(`${dir.path}/facts`, "python", PY_FACTS_CODEC);
  const text = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'é')\n";
  store.save("/p/a.py", 7, text.length, index.add("/p/a.py", 7, text.length, text));
  assert(store.load("/p/a.py", 7, text.length));
  assertEquals(store.load("/p/a.py", 8, text.length), undefined, "another mtime");
  assertEquals(store.load("/p/b.py", 7, text.length), undefined, "another file");
  const [record] = [...Deno.readDirSync(`${dir.path}/facts`)];
  const path = `${dir.path}/facts/${record!.name}`;
  const bytes = await Deno.readFile(path);
  for (const cut of [1, 10, bytes.length - bytes.indexOf(10) - 1]) {
    await Deno.writeFile(path, bytes.subarray(0, bytes.length - cut));
    assertEquals(
      new FactsStore(`${dir.path}/facts`, "python", PY_FACTS_CODEC).load("/p/a.py", 7, text.length),
      undefined,
      `cut by ${cut}`,
    );
  }
});
