import { assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

Deno.test("read_file returns a file's text", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "hello\n");
  await using host = await testHost({ roots: [root.path] });
  const result = await host.call("read_file", { path: "a.txt" });
  assertEquals(textOf(result), "hello\n");
  const outside = await host.call("read_file", { path: "/etc/passwd" });
  assertEquals(outside.isError, true);
  assertMatch(textOf(outside), /^path_denied: /);
});
