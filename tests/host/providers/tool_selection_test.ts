/**
 * Which tools the served host lists and answers, started as `mcp-config`
 * prints it: `tools.enabled` is exclusive, host-side tools can be switched
 * off, a name that is no tool is one line on stderr (and in `doctor`) while
 * the host serves, and a language's tools appear when its files do.
 */

import type { Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { cliRun, tempDir } from "../../_helpers.ts";
import { connectStdio, errorText, resultText, type StdioSession } from "../../_mcp.ts";

/** A root with a Python file and, when given, a toolhost.json. */
async function pythonProject(root: string, tools?: Record<string, unknown>): Promise<void> {
  await Deno.writeTextFile(`${root}/app.py`, "def main():\n    return 1\n");
  if (tools) await Deno.writeTextFile(`${root}/toolhost.json`, JSON.stringify({ tools }));
}

async function names(session: StdioSession): Promise<string[]> {
  const tools: Tool[] = (await session.client.listTools()).tools;
  return tools.map((tool) => tool.name).sort();
}

/** What a rejected call says, as the client's error has it. */
async function rejection(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return errorText(error);
  }
  throw new Error("the call did not fail");
}

/** Wait until `check` holds, polling; fail after a generous time. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("tool selection: tools.enabled lists exactly those tools, host-side ones included", async () => {
  await using root = await tempDir();
  await pythonProject(root.path, { enabled: ["read_file", "grep"] });
  await using session = await connectStdio([root.path]);
  assertEquals(await names(session), ["grep", "read_file"]);
  const read = await session.call("read_file", { path: "app.py" });
  assertMatch(resultText(read), /def main/);
  for (const tool of ["todo_read", "py_get_definition", "write_file"]) {
    assertEquals(
      await rejection(session.call(tool, {})),
      `MCP error -32602: Unknown tool "${tool}"`,
    );
  }
  assertFalse(/warn|error/.test(session.stderr()), session.stderr());
});

Deno.test("tool selection: tools.disabled switches off host-side tools and the host serves", async () => {
  await using root = await tempDir();
  await pythonProject(root.path, { disabled: ["todo_write", "get_host_performance"] });
  await using session = await connectStdio([root.path]);
  const listed = await names(session);
  assertFalse(listed.includes("todo_write") || listed.includes("get_host_performance"));
  assert(listed.includes("todo_read") && listed.includes("read_file"), listed.join(" "));
  assertMatch(await rejection(session.call("todo_write", { todos: [] })), /Unknown tool/);
  assertEquals(resultText(await session.call("todo_read", {})), "(no todos)");
  assertFalse(session.stderr().includes("    at "), `no stack trace: ${session.stderr()}`);
});

// One host for a Python project whose config names a missing tool (which switches nothing off) and
// holds a hidden directory's .js: its start-up line is read first, then the families appear as
// their files do; `doctor` runs once the host has closed.
Deno.test("tool selection: a config naming a missing tool serves, says one line on stderr, and doctor names it", async (t) => {
  await using root = await tempDir();
  await pythonProject(root.path, { disabled: ["todo_wirte"] });
  await Deno.mkdir(`${root.path}/.venv/lib`, { recursive: true });
  await Deno.writeTextFile(`${root.path}/.venv/lib/vendored.js`, "export const x = 1;\n");
  const line =
    'config tools.disabled names "todo_wirte", which is not a tool (did you mean "todo_write"?)';
  {
    await using session = await connectStdio([root.path]);
    let changed = 0;
    session.client.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    assert((await names(session)).includes("todo_write"), "nothing was switched off");
    const said = session.stderr().split("\n").filter((each) => each.includes("todo_wirte"));
    assertEquals(said, [`toolhost warn: ${line}`]);
    assertFalse(session.stderr().includes("    at "), `no stack trace: ${session.stderr()}`);

    await t.step(
      "tool selection: a Python-only project lists no C/C++ or TS/JS tools until such a file appears",
      async (t) => {
        const before = await names(session);
        assert(before.includes("py_get_definition"), before.join(" "));
        assertEquals(
          before.filter((name) => name.startsWith("ts_")),
          [],
          "a hidden directory's .js",
        );

        await t.step(
          "a .ts file written into it lists the TS/JS tools, with list_changed",
          async () => {
            const written = await session.call("write_file", {
              path: "web/app.ts",
              content: "export function greet(name: string): string {\n  return name;\n}\n",
              create_parents: true,
            });
            assertFalse(written.isError === true, resultText(written));
            await until(() => changed === 1, "notifications/tools/list_changed");
            const after = await names(session);
            assert(after.includes("ts_js_get_code_outline"), after.join(" "));
            assertEquals(after.filter((name) => name.startsWith("ts_c")), []);
          },
        );

        await t.step(
          "a hidden family's tool still answers, and what it read lists its family",
          async () => {
            await Deno.writeTextFile(
              `${root.path}/lib.c`,
              "int add(int a, int b) { return a + b; }\n",
            );
            const outline = await session.call("ts_c_get_code_outline", { path: "lib.c" });
            assertMatch(resultText(outline), /add/);
            await until(() => changed === 2, "the second notifications/tools/list_changed");
            assert((await names(session)).includes("ts_c_get_code_outline"));
          },
        );
      },
    );
  }
  const doctor = await new Deno.Command(Deno.execPath(), {
    args: cliRun(["doctor", "--json", "--root", root.path]),
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(doctor.stdout)) as {
    probes: Array<{ name: string; ok: boolean; detail: string }>;
  };
  const probes = report.probes.filter((probe) => probe.name === "configuration: tool names");
  assertEquals(probes.map((probe) => probe.ok), [false]);
  assert(probes[0]!.detail.startsWith(line), probes[0]!.detail);
  assertEquals(doctor.code, 1);
});

Deno.test("tool selection: tools.families forces families on and off", async () => {
  await using root = await tempDir();
  await pythonProject(root.path, { families: { cfamily: true, python: false } });
  await using session = await connectStdio([root.path]);
  const listed = await names(session);
  assert(listed.includes("ts_c_get_definition"), listed.join(" "));
  assertEquals(listed.filter((name) => name.startsWith("py_")), []);
  assertEquals(listed.filter((name) => name.startsWith("ts_js_")), []);
  assertMatch(await rejection(session.call("py_get_skeleton", { path: "app.py" })), /Unknown tool/);
  // The host's own look at the roots is neither listed nor callable.
  assertFalse(listed.includes("detect_languages"));
  assertMatch(
    await rejection(session.call("detect_languages", { extensions: [".py"] })),
    /Unknown/,
  );
});
