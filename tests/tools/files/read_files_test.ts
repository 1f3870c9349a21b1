/**
 * `read_files`: several files in one call, each under its own header and
 * bounded, the bound split fairly; one file's error stays in its place; each
 * file read counts as read for stale-read protection.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { DEFAULT_LIMITS } from "../../../security/policy.ts";
import type { ToolResult } from "../../../tools/tool.ts";

function blocks(result: ToolResult): string[] {
  return result.content.map((block) => (block.type === "text" ? block.text : ""));
}

Deno.test("read_files reads several files, each with a header, and reports a failure in its place", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.py`, "x = 1\ny = 2\n");
  await Deno.writeTextFile(`${root.path}/b.txt`, "no final newline");
  await Deno.writeFile(`${root.path}/p.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  await Deno.writeTextFile(`${outside.path}/secret.txt`, "s3cret\n");
  await using host = await launchHost({ roots: [root.path] });

  await t.step("every file under a header, errors in their place", async () => {
    const result = await host.call("read_files", {
      paths: ["a.py", "missing.txt", "p.png", `${outside.path}/secret.txt`, "b.txt"],
    });
    assertFalse(result.isError);
    const [a, missing, png, secret, b] = blocks(result);
    assertEquals(a, "==> a.py [2 lines] <==\nx = 1\ny = 2\n");
    assertMatch(missing!, /^==> missing.txt <==\nnot_found: /);
    assertMatch(png!, /^==> p.png <==\nbinary_file: .*PNG image/);
    assertMatch(secret!, /<==\npath_denied: /);
    assertFalse(textOf(result).includes("s3cret"));
    assertEquals(b, "==> b.txt [1 line] <==\nno final newline");
    const files = result.structuredContent?.files as Array<Record<string, unknown>>;
    assertEquals(files[0], {
      path: "a.py",
      start_line: 1,
      end_line: 2,
      total_lines: 2,
      truncated: false,
    });
    assertMatch(String(files[1]!.error), /^not_found: /);
  });

  await t.step(
    "a call whose every file fails is an error; one path gives its own error",
    async () => {
      const one = await host.call("read_files", { paths: ["/etc/passwd"] });
      assertEquals(one.isError, true);
      assertMatch(textOf(one), /^path_denied: /);
      const two = await host.call("read_files", { paths: ["nope1", "nope2"] });
      assertEquals(two.isError, true);
      assertEquals(blocks(two).length, 2);
    },
  );

  await t.step("line numbers and a per-file line limit with the call for the rest", async () => {
    await Deno.writeTextFile(
      `${root.path}/rows.txt`,
      Array.from({ length: 10 }, (_, i) => `row ${i + 1}\n`).join(""),
    );
    const result = await host.call("read_files", {
      paths: ["a.py", "rows.txt"],
      limit: 3,
      line_numbers: true,
    });
    assertEquals(
      blocks(result)[1],
      '==> rows.txt [lines 1-3 of 10; read_file(path="rows.txt", offset=4, limit=3, line_numbers=true) for more] <==\n' +
        "     1\trow 1\n     2\trow 2\n     3\trow 3\n",
    );
  });

  await t.step("more than 20 paths are refused", async () => {
    const result = await host.call("read_files", { paths: Array(21).fill("a.py") });
    assertEquals(result.isError, true);
    assertMatch(textOf(result), /^invalid_argument: /);
  });
});

Deno.test("read_files splits the bound fairly: small files whole, a large one paged, whole lines only", async () => {
  await using root = await tempDir();
  const line = `${"word ".repeat(40)}\n`;
  const big = line.repeat(Math.ceil(400_000 / line.length));
  await Deno.writeTextFile(`${root.path}/big.txt`, big);
  await Deno.writeTextFile(`${root.path}/huge.txt`, big);
  await Deno.writeTextFile(`${root.path}/small.txt`, "tiny\n");
  await using host = await launchHost({ roots: [root.path] });
  const result = await host.call("read_files", {
    paths: ["big.txt", "small.txt", "huge.txt"],
    limit: 100_000,
  });
  const size = new TextEncoder().encode(JSON.stringify(result)).length;
  assert(size <= DEFAULT_LIMITS.maxOutputChars, `a reply of ${size} bytes`);
  assertFalse(textOf(result).includes("[truncated"), "the host did not have to cut the reply");
  const [bigBlock, small, hugeBlock] = blocks(result);
  assertEquals(small, "==> small.txt [1 line] <==\ntiny\n");
  const paged: Array<[string, string]> = [["big.txt", bigBlock!], ["huge.txt", hugeBlock!]];
  for (const [name, block] of paged) {
    const [header, ...rest] = block.split("\n");
    assertStringIncludes(header!, "(output limit reached)");
    const body = rest.join("\n");
    assert(body.length > 60_000, `${name}: ${body.length} characters`);
    assert(big.startsWith(body) && body.endsWith("\n"), `${name}: whole lines from the start`);
    const next = Number(header!.match(/offset=(\d+)/)![1]);
    assertEquals(next, body.split("\n").length, `${name}: the note goes on after the last line`);
  }
  assert(Math.abs(bigBlock!.length - hugeBlock!.length) <= line.length + 200, "equal shares");
});

Deno.test("read_files counts as a read of each file for stale-read protection", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.py`, "a = 1\n");
  await Deno.writeTextFile(`${root.path}/b.py`, "b = 1\n");
  await using host = await launchHost({ roots: [root.path] });
  const read = await host.call("read_files", { paths: ["a.py", "b.py"] });
  assertFalse(read.isError, textOf(read));
  await new Promise((resolve) => setTimeout(resolve, 10)); // a distinct mtime
  await Deno.writeTextFile(`${root.path}/b.py`, "b = 2\n");
  const refused = await host.call("edit_file", {
    path: "b.py",
    old_string: "b = 2",
    new_string: "b = 3",
  });
  assertEquals(refused.isError, true);
  assertMatch(textOf(refused), /^stale_read: "b.py" changed since you last read it/);
  assertEquals(await Deno.readTextFile(`${root.path}/b.py`), "b = 2\n");
  const edited = await host.call("edit_file", {
    path: "a.py",
    old_string: "a = 1",
    new_string: "a = 2",
  });
  assertFalse(edited.isError, textOf(edited));
});
