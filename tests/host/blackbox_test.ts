/**
 * Black-box: an SDK client started with the command from `mcp-config`
 * (sandboxed: scoped Deno flags, Landlock where available) lists and calls
 * every file tool on a temp root.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio } from "../_mcp.ts";

const FILE_TOOLS = [
  "read_file",
  "list_directory",
  "search_files",
  "get_file_slice",
  "set_file_slice",
  "edit_file",
  "get_tree",
  "write_file",
  "grep",
  "get_file_info",
  "move_file",
  "create_directory",
];

function text(result: unknown): string {
  const blocks = (result as CallToolResult).content as Array<{ type: string; text?: string }>;
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

Deno.test("black-box: the mcp-config command serves every file tool over stdio", async (t) => {
  await using root = await tempDir("toolhost-blackbox-");
  await Deno.mkdir(`${root.path}/src/pkg`, { recursive: true });
  await Deno.writeTextFile(
    `${root.path}/src/pkg/app.py`,
    "def main():\n    print('hello')\n\nmain()\n",
  );
  await Deno.writeTextFile(`${root.path}/src/notes.md`, "# Notes\nhello world\n");
  await Deno.writeTextFile(`${root.path}/.gitignore`, "build/\n");
  await Deno.mkdir(`${root.path}/build`);
  await Deno.writeTextFile(`${root.path}/build/out.txt`, "hello from build\n");
  await using session = await connectStdio([root.path]);
  const { client } = session;
  const call = (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  await t.step("tools/list has every file tool with schemas and annotations", async () => {
    const tools: Tool[] = (await client.listTools()).tools;
    const names = tools.map((tool) => tool.name);
    for (const name of FILE_TOOLS) assert(names.includes(name), `${name} is listed`);
    for (const tool of tools.filter((each) => FILE_TOOLS.includes(each.name))) {
      assertEquals(tool.inputSchema.type, "object", tool.name);
      assert(
        tool.description && tool.description.length > 40,
        `${tool.name} has a description for a model`,
      );
      const hints = tool.annotations ?? {};
      assert(
        hints.readOnlyHint === true || hints.destructiveHint !== undefined,
        `${tool.name} has hints`,
      );
    }
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name)
      .sort();
    for (
      const name of [
        "read_file",
        "list_directory",
        "search_files",
        "get_file_slice",
        "get_tree",
        "grep",
        "get_file_info",
      ]
    ) {
      assert(readOnly.includes(name), `${name} is read-only`);
    }
    assertStringIncludes(client.getInstructions() ?? "", root.path);
  });

  await t.step("read, list, tree, search, grep", async () => {
    assertEquals(
      text(await call("read_file", { path: "src/pkg/app.py" })),
      "def main():\n    print('hello')\n\nmain()\n",
    );
    assertStringIncludes(text(await call("list_directory", { path: "src" })), "[dir]  pkg/");
    const tree = text(await call("get_tree", { path: ".", max_depth: 3 }));
    assertStringIncludes(tree, "app.py");
    assertFalse(tree.includes("out.txt"), "get_tree honours .gitignore");
    const found = await call("search_files", { path: ".", pattern: "*.py" });
    assertStringIncludes(text(found), "src/pkg/app.py");
    const grep = text(await call("grep", { path: ".", pattern: "hello" }));
    assertStringIncludes(grep, "app.py");
    assertStringIncludes(grep, "notes.md");
    assertFalse(grep.includes("build/out.txt"), "grep honours .gitignore");
  });

  await t.step("slice, set, edit, write, info, mkdir, move", async () => {
    const slice = await call("get_file_slice", {
      path: "src/pkg/app.py",
      start_line: 2,
      end_line: 2,
    });
    assertEquals((slice.structuredContent as { content: string }).content, "    print('hello')\n");
    await call("set_file_slice", {
      path: "src/pkg/app.py",
      start_line: 2,
      end_line: 2,
      content: "    print('hi')",
    });
    await call("edit_file", {
      path: "src/pkg/app.py",
      old_string: "main()\n",
      new_string: "if __name__ == '__main__':\n    main()\n",
    });
    assertEquals(
      await Deno.readTextFile(`${root.path}/src/pkg/app.py`),
      "def main():\n    print('hi')\n\nif __name__ == '__main__':\n    main()\n",
    );
    await call("create_directory", { path: "docs/api" });
    await call("write_file", { path: "docs/api/index.md", content: "# API\n" });
    await call("move_file", { source: "docs/api/index.md", destination: "docs/README.md" });
    assertEquals(await Deno.readTextFile(`${root.path}/docs/README.md`), "# API\n");
    const info = await call("get_file_info", { path: "docs/README.md" });
    assertEquals((info.structuredContent as { size: number }).size, 6);
  });

  await t.step(
    "errors are isError results with stable codes; unknown tools are protocol errors",
    async () => {
      const outside = await call("read_file", { path: "/etc/passwd" });
      assertEquals(outside.isError, true);
      assertMatch(text(outside), /^path_denied: "\/etc\/passwd" is outside the allowed roots/);
      const missing = await call("read_file", { path: "nope.txt" });
      assertMatch(text(missing), /^not_found: /);
      const invalid = await call("get_file_slice", { path: "docs/README.md" });
      assertMatch(text(invalid), /^invalid_argument: /);
      await assertRejects(() => call("no_such_tool", {}), Error, "no_such_tool");
    },
  );

  await t.step("calls run concurrently", async () => {
    const results: CallToolResult[] = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          call("write_file", { path: `many/f${i}.txt`, content: `${i}`, create_parents: true }),
      ),
    );
    assert(results.every((result) => !result.isError));
    assertEquals([...Deno.readDirSync(`${root.path}/many`)].length, 20);
  });
});
