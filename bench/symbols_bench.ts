/**
 * Speed of `find_usages` and `rename_symbol` (dry run) through the whole
 * host: the SDK's client over stdio to the server started exactly as
 * `toolhost mcp-config` prints it, on a copy of python3's `email` package
 * renamed `mailkit`, with `shlex.py` (the tests' fixture), and optionally on
 * a copy of the whole standard library.
 *
 * Run: `deno run -A bench/symbols_bench.ts [--runs N] [--calls N] [--stdlib]`
 *
 * Measures, per fresh server (N runs, default 3):
 * - the first call (cold: the worker reads and parses every file of the scope);
 * - warm calls (default 100 each): `find_usages` of `_parseaddr.quote`,
 *   `message.Message` and `Message.get_payload`, and `rename_symbol` of
 *   `quote` with `dry_run`;
 * - a call after one file changed (its mtime moved: that file is parsed again);
 * - with `--stdlib`, the same first and warm calls with the whole standard
 *   library (no tests, no site-packages) as the scope, beside the copy;
 * - the server's memory (RSS of the process and its workers) at the end.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mcpConfigFor } from "../tests/_mcp.ts";
import { writeMailkit } from "../tests/tools/symbols/_fixtures.ts";
import { quantile, treeRss } from "./_measure.ts";

const HERE = new URL(".", import.meta.url).pathname;
const TREE = `${HERE}.data/symbols_bench`;
const arg = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
};
const RUNS = arg("--runs", 3);
const CALLS = arg("--calls", 100);
const STDLIB = Deno.args.includes("--stdlib");

/** The email package's copy; the standard library's (with `--stdlib`) is beside it. */
const CASE = "email_case";
const QUOTE = { path: `${CASE}/mailkit/_parseaddr.py`, name: "quote", scope: CASE };
const CASES: Array<[string, string, Record<string, unknown>]> = [
  ["find_usages _parseaddr.quote (7 sites)", "find_usages", QUOTE],
  ["find_usages message.Message (10 sites)", "find_usages", {
    path: `${CASE}/mailkit/message.py`,
    name: "Message",
    scope: CASE,
  }],
  ["find_usages Message.get_payload (20 sites, 17 unsure)", "find_usages", {
    path: `${CASE}/mailkit/message.py`,
    name: "Message.get_payload",
    scope: CASE,
  }],
  ["rename_symbol quote, dry run (3 files)", "rename_symbol", {
    ...QUOTE,
    new_name: "quote_string",
    dry_run: true,
  }],
];

/** The copy, made once (and the standard library's copy with `--stdlib`). */
async function ensureTree(): Promise<void> {
  const have = await Deno.stat(`${TREE}/${CASE}/mailkit/_parseaddr.py`).catch(() => undefined);
  if (!have) {
    await Deno.mkdir(`${TREE}/${CASE}`, { recursive: true });
    await writeMailkit(`${TREE}/${CASE}`);
  }
  if (!STDLIB || await Deno.stat(`${TREE}/stdlib/os.py`).catch(() => undefined)) return;
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
    stdout: "piped",
  }).output();
  await copyPython(new TextDecoder().decode(out.stdout).trim(), `${TREE}/stdlib`);
}

async function copyPython(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (["site-packages", "__pycache__", "test", "tests"].includes(entry.name)) continue;
    if (entry.isDirectory) await copyPython(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile && entry.name.endsWith(".py")) {
      await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
    }
  }
}

async function timed(client: Client, name: string, args: Record<string, unknown>) {
  const start = performance.now();
  const result = await client.callTool({ name, arguments: args });
  const took = performance.now() - start;
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return took;
}

async function connect(): Promise<{ client: Client; pid: number }> {
  const served = await mcpConfigFor([TREE]);
  const transport = new StdioClientTransport({
    command: served.command,
    args: served.args,
    cwd: "/",
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/root" },
    stderr: "ignore",
  });
  const client = new Client({ name: "symbols-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** One fresh server: the cold call, warm calls of each case, one changed file. */
async function run(rows: Map<string, number[]>, memory: number[]): Promise<void> {
  const add = (what: string, ms: number) => rows.set(what, [...(rows.get(what) ?? []), ms]);
  const { client, pid } = await connect();
  try {
    add("first call (cold: reads and parses the scope)", await timed(client, "find_usages", QUOTE));
    for (const [what, tool, args] of CASES) {
      for (let i = 0; i < CALLS; i++) add(what, await timed(client, tool, args));
    }
    for (let i = 0; i < 5; i++) {
      const now = new Date(Date.now() + (i + 1) * 1000);
      await Deno.utime(`${TREE}/${CASE}/mailkit/utils.py`, now, now);
      add("find_usages quote after utils.py changed", await timed(client, "find_usages", QUOTE));
    }
    if (STDLIB) {
      const scope = { path: "stdlib/email/_parseaddr.py", name: "quote", scope: "stdlib" };
      add("stdlib scope: first call", await timed(client, "find_usages", scope));
      for (let i = 0; i < 30; i++) {
        add("stdlib scope: warm", await timed(client, "find_usages", scope));
      }
    }
    memory.push(treeRss(pid));
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  await ensureTree();
  const rows = new Map<string, number[]>();
  const memory: number[] = [];
  for (let i = 0; i < RUNS; i++) await run(rows, memory);
  console.log(`${RUNS} fresh servers, ${CALLS} warm calls per case each; ms`);
  console.log("| call | median | p90 | max |");
  console.log("| --- | --- | --- | --- |");
  for (const [what, values] of rows) {
    const cells = [0.5, 0.9, 1].map((q) => quantile(values, q).toFixed(1));
    console.log(`| ${what} | ${cells.join(" | ")} |`);
  }
  const mb = memory.map((bytes) => (bytes / 2 ** 20).toFixed(0)).join(", ");
  console.log(`server RSS at the end of each run (process and workers): ${mb} MB`);
}

if (import.meta.main) await main();
