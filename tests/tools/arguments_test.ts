/**
 * Tool arguments are checked strictly, through the launch users run: every
 * tool a host with every family lists refuses a key its schema does not
 * have (`invalid_argument`, naming the key and the keys it takes, with a
 * "did you mean" for a former name), and its listed input schema says
 * `additionalProperties: false`. Each case's arguments are checked valid
 * twice, by oracles of their own: the listed schema, compiled by the MCP
 * SDK's Ajv validator, and the host, which runs the call.
 */

import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { JsonSchemaType, Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { canRun, tempDir, textOf } from "../_helpers.ts";
import { type LaunchedHost, launchHost } from "../_mcp.ts";
import { git } from "./git/_repos.ts";

/** A key no tool takes, and no name is close to. */
const UNKNOWN = "zz_unknown";

/** One tool's call with valid arguments, and what the host answers it. */
interface Case {
  /** Valid arguments: the required ones, and any that keep the call harmless. */
  args: Record<string, unknown>;
  /** The answer's error code when the call, valid as it is, fails here (no network, no bd workspace). */
  fails?: string;
  /** A former (or another host's) name `was` of the key `of`: called with it, the refusal asks "did you mean" `of`. */
  former?: { of: string; was: string };
}

const PY = "app.py";
const NEW_HELPER = "def helper():\n    return LIMIT\n";

/** Every tool a host can list, with its case. A listed tool without one fails the test. */
const CASES: Record<string, Case> = {
  read_file: { args: { path: "notes.txt" }, former: { of: "path", was: "file_path" } },
  read_files: { args: { paths: ["notes.txt"] } },
  list_directory: { args: {}, former: { of: "limit", was: "max_entries" } },
  get_file_slice: { args: { path: "notes.txt", start_line: 1, end_line: 1 } },
  set_file_slice: {
    args: { path: "notes.txt", start_line: 1, end_line: 1, content: "one" },
    former: { of: "content", was: "new_content" },
  },
  edit_file: { args: { path: "notes.txt", old_string: "two", new_string: "three" } },
  write_file: { args: { path: "written.txt", content: "new\n" } },
  get_file_info: { args: { path: "notes.txt" } },
  move_file: { args: { source: "move_me.txt", destination: "moved.txt" } },
  create_directory: { args: { path: "made" } },
  search_files: { args: { pattern: "*.py" }, former: { of: "limit", was: "max_results" } },
  grep: { args: { pattern: "helper" }, former: { of: "limit", was: "max_results" } },
  get_tree: { args: { max_depth: 1 }, former: { of: "max_depth", was: "depth" } },
  ts_c_get_skeleton: { args: { path: "lib.c" } },
  ts_c_get_code_outline: { args: { path: "lib.c" } },
  ts_c_get_definition: { args: { path: "lib.c", name: "add" } },
  ts_c_update_definition: {
    args: { path: "lib.c", name: "add", content: "int add(int a, int b) { return b + a; }\n" },
    former: { of: "content", was: "new_content" },
  },
  ts_c_get_signature: { args: { path: "lib.c", name: "add" } },
  ts_cpp_get_skeleton: { args: { path: "shape.cpp" } },
  ts_cpp_get_code_outline: { args: { path: "shape.cpp" } },
  ts_cpp_get_definition: { args: { path: "shape.cpp", name: "twice" } },
  ts_cpp_update_definition: {
    args: { path: "shape.cpp", name: "twice", content: "int twice(int x) { return 2 * x; }\n" },
    former: { of: "content", was: "new_content" },
  },
  ts_cpp_get_signature: { args: { path: "shape.cpp", name: "twice" } },
  ts_js_get_code_outline: { args: { path: "index.ts" } },
  ts_js_get_skeleton: { args: { path: "index.ts" } },
  ts_js_get_definition: { args: { path: "index.ts", name: "greet" } },
  ts_js_update_definition: {
    args: {
      path: "index.ts",
      name: "greet",
      content: "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
    },
    former: { of: "content", was: "new_content" },
  },
  get_file_summary: { args: { path: PY } },
  derive_code_path: { args: { name: "Base.run" }, former: { of: "name", was: "target" } },
  py_get_skeleton: { args: { path: PY } },
  py_get_code_outline: { args: { path: PY } },
  py_get_definition: { args: { path: PY, name: "helper" } },
  py_update_definition: {
    args: { path: PY, name: "helper", content: NEW_HELPER },
    former: { of: "content", was: "new_content" },
  },
  py_get_signature: { args: { path: PY, name: "helper" } },
  py_set_signature: {
    args: { path: PY, name: "helper", content: "def helper():" },
    former: { of: "content", was: "new_signature" },
  },
  py_get_class_summary: { args: { path: PY, name: "Base" } },
  py_get_var_declaration: { args: { path: PY, name: "LIMIT" } },
  py_set_var_declaration: {
    args: { path: PY, name: "LIMIT", content: "LIMIT = 3" },
    former: { of: "content", was: "new_declaration" },
  },
  py_get_imports: { args: { path: PY } },
  py_check_syntax: { args: { path: PY } },
  py_get_hierarchy: { args: { name: "Base" }, former: { of: "name", was: "class_name" } },
  py_get_docstring: { args: { path: PY } },
  py_remove_def: { args: { path: PY, name: "spare" } },
  py_add_def: {
    args: { path: PY, name: "extra", content: "def extra():\n    return 1\n" },
    former: { of: "content", was: "new_content" },
  },
  py_move_def: {
    args: { source: PY, destination: "other.py", name: "moved" },
    former: { of: "source", was: "src_path" },
  },
  py_region_wrap: { args: { path: "region.py", start_line: 1, end_line: 1, region_name: "setup" } },
  find_usages: { args: { path: PY, name: "helper" }, former: { of: "limit", was: "max_results" } },
  rename_symbol: { args: { path: PY, name: "Sub", new_name: "Child", dry_run: true } },
  read_interactions: { args: {} },
  bootstrap_body_state: { args: {} },
  get_host_performance: { args: {} },
  todo_write: { args: { todos: [{ content: "check arguments", status: "pending" }] } },
  todo_read: { args: {} },
  run_shell: { args: { command: "true" } },
  git_status: { args: {} },
  get_git_diff: { args: { path: "." } },
  git_log: { args: {}, former: { of: "offset", was: "skip" } },
  git_show: { args: { rev: "HEAD" } },
  git_blame: { args: { path: "notes.txt" } },
  bd_list: { args: {}, fails: "not_found" },
  bd_ready: { args: {}, fails: "not_found" },
  bd_create: { args: { title: "check arguments" }, fails: "not_found" },
  bd_update: { args: { bead_id: "bd-a1b2", status: "open" }, fails: "not_found" },
  // Loopback is outside what the web tools may reach, and the search goes there.
  fetch_url: { args: { url: "http://127.0.0.1:9/" }, fails: "net_denied" },
  web_search: { args: { query: "toolhost" }, fails: "net_denied" },
};

/** A project with a file for every family, committed to a git repository. */
async function project(root: string): Promise<void> {
  const files: Record<string, string> = {
    [PY]: [
      "import os",
      "",
      "LIMIT = 3",
      "",
      "",
      "class Base:",
      "    def run(self):",
      "        return helper()",
      "",
      "",
      "class Sub(Base):",
      "    pass",
      "",
      "",
      NEW_HELPER,
      "",
      "def spare():",
      "    return os.sep",
      "",
      "",
      "def moved():",
      "    return 2",
      "",
    ].join("\n"),
    "other.py": "X = 1\n",
    "region.py": "SETUP = 1\n",
    "notes.txt": "one\ntwo\n",
    "move_me.txt": "moving\n",
    "lib.c": "int add(int a, int b) { return a + b; }\n",
    "lib.h": "int add(int a, int b);\n",
    "shape.cpp": "int twice(int x) { return x + x; }\n",
    "index.ts": "export function greet(name: string): string {\n  return name;\n}\n",
    "util.js": "export const twice = (x) => x * 2;\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${root}/${name}`, text);
  }
  await git(root, "init", "-q", "-b", "main");
  await git(root, "add", "-A");
  await git(root, "commit", "-qm", "first");
}

/** The listed tools, with their input schemas as a client got them. */
async function listed(host: LaunchedHost): Promise<Tool[]> {
  return (await host.session.client.listTools()).tools;
}

/** The keys a listed tool takes, from its input schema. */
function keysOf(tool: Tool): string[] {
  return Object.keys(tool.inputSchema.properties ?? {});
}

/** The refusal of an unknown key, checked for what every one says. */
async function refusal(
  host: LaunchedHost,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await host.call(tool.name, args);
  const text = textOf(result);
  assertEquals(result.isError, true, `${tool.name}: ${text}`);
  assertMatch(text, new RegExp(`^invalid_argument: Cannot call ${tool.name}: unknown argument`));
  const keys = keysOf(tool);
  assert(text.endsWith(keys.length ? `it takes ${keys.join(", ")}` : "it takes none"), text);
  assertFalse(text.includes("\n"), `one line: ${text}`);
  return text;
}

Deno.test({
  name:
    "every listed tool refuses an unknown argument by name, and a former name with the new one" +
    (canRun("git") ? "" : " (skipped: git is not installed)"),
  ignore: !canRun("git"),
  async fn(t) {
    await using root = await tempDir();
    await project(root.path);
    await using host = await launchHost({
      roots: [root.path],
      userFile: { net: { searchUrl: "http://127.0.0.1:9/html/" } },
    });
    const tools = await listed(host);
    const names = tools.map((tool) => tool.name);
    for (const family of ["py_get_skeleton", "ts_c_get_skeleton", "ts_cpp_get_skeleton"]) {
      assert(names.includes(family), `${family} is listed: ${names.join(" ")}`);
    }
    for (const more of ["ts_js_get_skeleton", "fetch_url", "web_search"]) {
      assert(names.includes(more), `${more} is listed: ${names.join(" ")}`);
    }
    // Where the sandbox runs git, its tools are listed; where it cannot, neither is run_shell.
    assertEquals(names.includes("git_log"), names.includes("run_shell"), names.join(" "));
    const validator = new AjvJsonSchemaValidator();

    for (const tool of tools) {
      await t.step(tool.name, async () => {
        const test = CASES[tool.name];
        assert(test, `${tool.name} has a case`);
        const schema = tool.inputSchema as Tool["inputSchema"] & Record<string, unknown>;
        assertEquals(schema.type, "object");
        assertEquals(schema.additionalProperties, false);
        const check = validator.getValidator(schema as JsonSchemaType);
        assert(check(test.args).valid, `${tool.name}: ${check(test.args).errorMessage}`);
        const extra = { ...test.args, [UNKNOWN]: 1 };
        assertFalse(check(extra).valid, `the listed schema of ${tool.name} refuses ${UNKNOWN}`);

        const text = await refusal(host, tool, extra);
        assert(text.includes(`unknown argument "${UNKNOWN}";`), text);
        if (test.former) {
          const { of, was } = test.former;
          const { [of]: value, ...rest } = test.args;
          const old = await refusal(host, tool, { ...rest, [was]: value ?? 1 });
          assert(old.includes(`unknown argument "${was}" (did you mean "${of}"?)`), old);
        }

        const ran = await host.call(tool.name, test.args);
        const answer = textOf(ran);
        assertFalse(answer.startsWith("invalid_argument: Cannot call"), answer);
        if (test.fails) assertMatch(answer, new RegExp(`^${test.fails}: `));
        else assertFalse(ran.isError, `${tool.name}: ${answer}`);
      });
    }
  },
});

Deno.test("an unknown argument stops the call before it runs, and every unknown key is named", async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/notes.txt`, "one\n");
  await Deno.writeTextFile(`${root.path}/region.py`, "SETUP = 1\n");
  await using host = await launchHost({ roots: [root.path] });
  const tools = new Map((await listed(host)).map((tool) => [tool.name, tool]));

  await t.step("write_file with an unknown key writes nothing", async () => {
    const args = { path: "never.txt", content: "x", overwrite: true };
    await refusal(host, tools.get("write_file")!, args);
    const exists = await Deno.stat(`${root.path}/never.txt`).then(() => true, () => false);
    assertFalse(exists, "never.txt was not written");
  });

  await t.step("read_interactions names each filter it does not have", async () => {
    const args = { chat_id: "c1", sender: "me", action: "send", direction: "in" };
    const text = await refusal(host, tools.get("read_interactions")!, args);
    assert(text.includes('unknown arguments "chat_id", "sender", "action", "direction";'), text);
  });

  await t.step("a spelling close to a key, or the key in camelCase, is named", async () => {
    const tree = await refusal(host, tools.get("get_tree")!, { maxDepth: 1 });
    assert(tree.includes('"maxDepth" (did you mean "max_depth"?)'), tree);
    const read = await refusal(host, tools.get("read_file")!, { pth: "notes.txt" });
    assert(read.includes('"pth" (did you mean "path"?)'), read);
    const region = await refusal(host, tools.get("py_region_wrap")!, { name: "setup" });
    assert(region.includes('"name" (did you mean "region_name"?)'), region);
  });

  await t.step("a tool that takes no arguments says so", async () => {
    const text = await refusal(host, tools.get("todo_read")!, { all: true });
    assert(text.endsWith('unknown argument "all"; it takes none'), text);
  });
});
