/**
 * A rename that goes wrong while it writes is undone: every file it wrote is
 * read back, and when one is not what was written (another program changed
 * it meanwhile) or no longer parses, every file it wrote is put back as it
 * was, but one something else changed (putting it back would lose that
 * change), which is named.
 */

import { assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { TOOLS } from "../../../tools/mod.ts";
import { writeTree } from "./_fixtures.ts";

const FILES = {
  "a.py": "def greet(name):\n    return name\n",
  "b.py": "from a import greet\n\nprint(greet('b'))\n",
};

Deno.test("a file changed while the rename writes: the others are put back, that one is named", async () => {
  await using root = await tempDir();
  await writeTree(root.path, FILES);
  const ctx = await toolContext(root.path);
  let meddled = false;
  const fs = ctx.fs.withHooks({
    wrote: (resolved) => {
      if (meddled || !resolved.path.endsWith("/a.py")) return;
      meddled = true;
      // Another program appends to the file the rename has just written.
      Deno.writeTextFileSync(resolved.path, "def broken(:\n", { append: true });
    },
  });
  const rename = TOOLS.find((tool) => tool.name === "rename_symbol")!;
  const error = await assertRejects(() =>
    rename.run({ path: "a.py", name: "greet", new_name: "salute" } as never, { ...ctx, fs })
  );
  assertMatch(
    String(error),
    /"a\.py" changed while the rename was written \(put back as it was: b\.py; changed by something else meanwhile, left as it is: a\.py\)/,
  );
  assertEquals(await Deno.readTextFile(`${root.path}/b.py`), FILES["b.py"]);
  assertEquals(
    await Deno.readTextFile(`${root.path}/a.py`),
    "def salute(name):\n    return name\ndef broken(:\n",
  );
});
