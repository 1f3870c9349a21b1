/** `get_file_slice` with line numbers: the prefix is shown, never part of the content. */

import { assertEquals } from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";

Deno.test("get_file_slice numbers lines on request, like cat -n, and keeps the content as in the file", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "one\r\ntwo\r\nthree\r\nfour");
  await using host = await launchHost({ roots: [root.path] });
  const plain = await host.call("get_file_slice", { path: "a.txt", start_line: 2, end_line: 9 });
  assertEquals(textOf(plain), "a.txt: lines 2-4 of 4\ntwo\r\nthree\r\nfour");
  const numbered = await host.call("get_file_slice", {
    path: "a.txt",
    start_line: 2,
    end_line: 9,
    line_numbers: true,
  });
  assertEquals(
    textOf(numbered),
    "a.txt: lines 2-4 of 4\n     2\ttwo\r\n     3\tthree\r\n     4\tfour",
  );
  assertEquals(numbered.structuredContent?.content, "two\r\nthree\r\nfour");
});
