/**
 * What `tools/list` costs a model on every turn: what a client hands the
 * model of each tool (its name, description and input schema, as JSON),
 * summed over the tools the served host lists (started as `mcp-config`
 * prints it), in tokens at four characters each. A Python-only project
 * within 4,500, with the git tools of a repository within 5,200, every
 * family (Python, C, C++, TS/JS, git, web) within 8,000. Annotations, the
 * JSON-RPC envelope and the tools' `icons` are left out of that count (a
 * client draws icons and titles; a model does not read them); each report
 * says the wire size too. The icons' own wire cost is bounded apart: one
 * small icon per family (each `src` under 400 characters), the same for
 * every tool of the family.
 */

import { assert, assertEquals, assertFalse } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { HOST_TOOL_FAMILIES } from "../../../tools/host_tools.ts";
import { TOOL_FAMILIES } from "../../../tools/mod.ts";
import { initialize, type RawServer, startRaw, waitFor } from "../transports/stdio_raw.ts";

/** Characters per token, as the budgets count them. */
const CHARS_PER_TOKEN = 4;

interface Listed {
  /** The JSON text of the `tools/list` result as written on the wire, without the tools' `icons`. */
  text: string;
  /** How many characters the `icons` add on the wire. */
  iconChars: number;
  tools: Array<{
    name: string;
    description?: string;
    inputSchema: unknown;
    outputSchema?: unknown;
    icons?: Icon[];
  }>;
  /** What `search_files` gave back in `structuredContent`, when the list was asked with a search. */
  searched?: unknown;
}

interface Icon {
  src: string;
  mimeType?: string;
}

/**
 * Start the served host, initialize it with raw lines, send tools/list, and read its result; with
 * a pattern, then call `search_files` on the same host (a session of its own would cost a launch).
 */
async function rawList(root: string, search?: string): Promise<Listed> {
  const server = await startRaw([root], "auto");
  try {
    await initialize(server);
    await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await waitFor(server, "the answer to tools/list", (message) => message.id === 2);
    const result = server.messages.find((message) => message.id === 2)!.result as Pick<
      Listed,
      "tools"
    >;
    const wire = JSON.stringify(result);
    const text = JSON.stringify({
      ...result,
      tools: result.tools.map(({ icons: _icons, ...tool }) => tool),
    });
    const listed: Listed = { text, iconChars: wire.length - text.length, tools: result.tools };
    if (search !== undefined) listed.searched = await searched(server, search);
    return listed;
  } finally {
    await server.closeInput();
    await server.child.status;
  }
}

/** Call `search_files` with a pattern, as a client does after the list, and its structuredContent. */
async function searched(server: RawServer, pattern: string): Promise<unknown> {
  await server.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "search_files", arguments: { pattern } },
  });
  await waitFor(server, "the answer to search_files", (message) => message.id === 3);
  const answer = server.messages.find((message) => message.id === 3)!;
  return (answer.result as { structuredContent?: unknown }).structuredContent;
}

/** What a model reads of the list, in tokens: each tool's name, description and input schema. */
function tokens(listed: Listed): number {
  const chars = listed.tools.reduce(
    (sum, { name, description, inputSchema }) =>
      sum + JSON.stringify({ name, description, inputSchema }).length,
    0,
  );
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The whole `tools/list` result on the wire (icons left out), in tokens. */
function wireTokens(listed: Listed): number {
  return Math.ceil(listed.text.length / CHARS_PER_TOKEN);
}

function report(what: string, listed: Listed): string {
  const line = `${what}: ${listed.tools.length} tools, ${tokens(listed)} tokens as a model reads ` +
    `them (${wireTokens(listed)} on the wire; icons add ${listed.iconChars} characters there)`;
  // deno-lint-ignore no-console
  console.log(line);
  return line;
}

Deno.test("tool budget: a Python-only project's tools/list is within 4,500 tokens and has no C/C++ or TS/JS tools", async () => {
  await using root = await tempDir();
  await Deno.mkdir(`${root.path}/pkg`);
  await Deno.writeTextFile(`${root.path}/pkg/__init__.py`, "");
  await Deno.writeTextFile(`${root.path}/pkg/app.py`, "def main():\n    return 1\n");
  await Deno.writeTextFile(`${root.path}/README.md`, "# app\n");
  const listed = await rawList(root.path);
  const line = report("Python-only project", listed);
  assert(tokens(listed) <= 4_500, line);
  const names = listed.tools.map((tool) => tool.name);
  assert(names.includes("py_get_definition") && names.includes("read_file"), names.join(" "));
  assertEquals(names.filter((name) => name.startsWith("ts_")), []);
  for (const tool of listed.tools) assertFalse("outputSchema" in tool, tool.name);
  assertFalse(listed.text.includes(String(Number.MAX_SAFE_INTEGER)), "no zod integer bounds");
  assertFamilyIcons(listed);
});

/** Every tool has one small icon; a family's tools share it, and no two families' are alike. */
function assertFamilyIcons(listed: Listed): void {
  const families: Record<string, string> = { ...TOOL_FAMILIES, ...HOST_TOOL_FAMILIES };
  const byFamily = new Map<string, Set<string>>();
  for (const tool of listed.tools) {
    assertEquals(tool.icons?.length, 1, tool.name);
    const src = tool.icons![0]!.src;
    assert(src.length < 400, `${tool.name}: an icon of ${src.length} characters`);
    assert(src.startsWith("data:image/svg+xml;base64,"), tool.name);
    const family = families[tool.name]!;
    byFamily.set(family, new Set([...(byFamily.get(family) ?? []), src]));
  }
  for (const [family, icons] of byFamily) assertEquals(icons.size, 1, family);
  const distinct = new Set([...byFamily.values()].flatMap((icons) => [...icons]));
  assertEquals(distinct.size, byFamily.size, "one distinct icon per family");
  assert(byFamily.size >= 4, [...byFamily.keys()].join(" "));
}

Deno.test("tool budget: a project in every language, a git repository, lists every family within 8,000 tokens", async () => {
  await using root = await tempDir();
  const files: Record<string, string> = {
    "app.py": "def main():\n    return 1\n",
    "lib.c": "int add(int a, int b) { return a + b; }\n",
    "lib.h": "int add(int a, int b);\n",
    "shape.cpp": "class Shape { public: int area() { return 0; } };\n",
    "index.ts": "export function greet(name: string): string { return name; }\n",
    "util.js": "export const twice = (x) => x * 2;\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${root.path}/${name}`, text);
  }
  await Deno.mkdir(`${root.path}/.git`);
  const listed = await rawList(root.path);
  const line = report("every family", listed);
  assert(tokens(listed) <= 8_000, line);
  const names = listed.tools.map((tool) => tool.name);
  for (const prefix of ["py_", "ts_c_", "ts_cpp_", "ts_js_"]) {
    assert(names.some((name) => name.startsWith(prefix)), `${prefix} tools are listed`);
  }
  assert(names.includes("fetch_url") && names.includes("web_search"), names.join(" "));
  // Where the sandbox runs git, its tools are listed; where it cannot, neither is run_shell.
  assertEquals(names.includes("git_log"), names.includes("run_shell") && canRun("git"));
  assertFamilyIcons(listed);
});

Deno.test("tool budget: a Python project that is a git repository adds the git tools, within 5,200 tokens", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/app.py`, "def main():\n    return 1\n");
  const bare = await rawList(root.path);
  assertFalse(bare.tools.some((tool) => tool.name === "git_status"), "no repository: no git tools");
  await Deno.mkdir(`${root.path}/.git`);
  const listed = await rawList(root.path);
  const line = report("Python project in a git repository", listed);
  assert(tokens(listed) <= 5_200, line);
  const names = listed.tools.map((tool) => tool.name);
  const sandboxed = names.includes("run_shell");
  // Where the sandbox runs git, its tools are listed; where it cannot, neither is run_shell.
  assertEquals(names.includes("git_status"), sandboxed && canRun("git"), names.join(" "));
});

Deno.test("tool budget: output schemas are listed only when tools.outputSchemas is on; structuredContent comes back either way", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const lean = await rawList(root.path, "*.txt");
  for (const tool of lean.tools) assertFalse("outputSchema" in tool, tool.name);
  assertEquals((lean.searched as { files: string[] }).files, ["a.txt"]);
  await Deno.writeTextFile(
    `${root.path}/toolhost.json`,
    JSON.stringify({ tools: { outputSchemas: true } }),
  );
  const full = await rawList(root.path, "*.txt");
  const search = full.tools.find((tool) => tool.name === "search_files")!;
  assertEquals((search.outputSchema as { type?: string }).type, "object");
  const cost = wireTokens(full) - wireTokens(lean);
  // deno-lint-ignore no-console
  console.log(`tools.outputSchemas: true adds ${cost} tokens to ${wireTokens(lean)} on the wire`);
  assert(cost > 0, `${cost}`);
  assertEquals((full.searched as { files: string[] }).files, ["a.txt"]);
});
