import { assertEquals, assertRejects } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { loadConfig, unknownToolNames } from "../../../host/config/mod.ts";

const KNOWN = {
  tools: ["read_file", "grep", "todo_write", "todo_read"],
  families: ["files", "python", "cfamily", "todo"],
};

Deno.test("tool settings: each name that is no tool or family is one line, with the nearest name when close", () => {
  assertEquals(unknownToolNames({ disabled: ["todo_write"], enabled: ["grep"] }, KNOWN), []);
  assertEquals(unknownToolNames({ disabled: ["todo_wirte"] }, KNOWN), [
    'config tools.disabled names "todo_wirte", which is not a tool (did you mean "todo_write"?)',
  ]);
  assertEquals(unknownToolNames({ enabled: ["read_file", "frobnicate"] }, KNOWN), [
    'config tools.enabled names "frobnicate", which is not a tool',
  ]);
  assertEquals(unknownToolNames({ families: { cfamilly: true, python: false } }, KNOWN), [
    'config tools.families names "cfamilly", which is not a tool family (did you mean "cfamily"?)',
  ]);
});

Deno.test("tool settings: toolhost.json takes families and outputSchemas, and refuses other shapes", async () => {
  await using root = await tempDir();
  const file = `${root.path}/toolhost.json`;
  const tools = { families: { cfamily: true }, outputSchemas: true, disabled: ["todo_wirte"] };
  await Deno.writeTextFile(file, JSON.stringify({ tools }));
  const config = await loadConfig({ roots: [root.path], createStateDir: false });
  assertEquals(config.tools, tools);
  await Deno.writeTextFile(file, JSON.stringify({ tools: { families: { cfamily: "yes" } } }));
  await assertRejects(
    () => loadConfig({ roots: [root.path], createStateDir: false }),
    TypeError,
    "tools.families.cfamily",
  );
});
