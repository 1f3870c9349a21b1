/**
 * Side-by-side speed of `search_files` and `grep` through the whole host (a
 * real MCP client over stdio), against ripgrep and against
 * `@modelcontextprotocol/server-filesystem`, on a tree of copies of python3's
 * standard library (made under `bench/.data/` when missing, ≥ 50,000 files).
 *
 * Run: `deno run -A --unstable-worker-options bench/search_bench.ts [--runs N]`
 *
 * Rows: ours with ripgrep (the worker runs rg), ours with the JS walker
 * (`--ripgrep off`), bare `rg`, and server-filesystem's `search_files`.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const HERE = new URL(".", import.meta.url).pathname;
const MAIN = new URL("../mod.ts", import.meta.url).pathname;
const DATA = `${HERE}.data`;
const TREE = `${DATA}/pystdlib`;
const MIN_FILES = 50_000;
const RUNS = Number(Deno.args[Deno.args.indexOf("--runs") + 1] ?? 5) || 5;

async function sh(cmd: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "inherit" }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

async function countFiles(dir: string): Promise<number> {
  const { stdout } = await sh("rg", ["--files", "--no-ignore", "--hidden", "--no-config", dir]);
  return stdout.split("\n").filter((l) => l !== "").length;
}

/** Make the tree: copies of the stdlib (without site-packages) until there are ≥ 50,000 files. */
async function ensureTree(): Promise<number> {
  await Deno.mkdir(TREE, { recursive: true });
  let files = await countFiles(TREE);
  if (files >= MIN_FILES) return files;
  const stdlib =
    (await sh("python3", ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"]))
      .stdout.trim();
  for (let i = 0; files < MIN_FILES; i++) {
    const dest = `${TREE}/copy${i}`;
    await Deno.mkdir(dest, { recursive: true });
    const tar = `tar -C '${stdlib}' --exclude=./site-packages -cf - . | tar -C '${dest}' -xf -`;
    if ((await sh("sh", ["-c", tar])).code !== 0) throw new Error(`copying ${stdlib} failed`);
    files = await countFiles(TREE);
    console.error(`made ${dest}: ${files} files so far`);
  }
  return files;
}

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "search-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up (page cache, JIT)
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const began = performance.now();
    await fn();
    samples.push(performance.now() - began);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
  if (result.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
  return text;
}

const files = await ensureTree();
const serve = [
  "run",
  "-A",
  "--unstable-worker-options",
  MAIN,
  "serve",
  "--root",
  TREE,
  "--allow-broad-permissions",
];
const oursRg = await connect("deno", [...serve, "--ripgrep", "auto"]);
const oursJs = await connect("deno", [...serve, "--ripgrep", "off"]);
const fsServer = await connect("deno", [
  "run",
  "-A",
  "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
  TREE,
]);
const fsTools = await fsServer.listTools();
const fsSearch = fsTools.tools.find((t: { name: string }) => t.name === "search_files");
console.error(
  `server-filesystem search_files parameters: ${
    Object.keys(fsSearch?.inputSchema.properties ?? {})
  }`,
);

const rg = (args: string[]) => () => sh("rg", ["--no-config", ...args, TREE]);
const cases: Array<
  {
    label: string;
    tool: string;
    args: Record<string, unknown>;
    rg: string[];
    fs?: Record<string, unknown>;
  }
> = [
  {
    label: 'search_files "*.py"',
    tool: "search_files",
    args: { path: TREE, pattern: "*.py" },
    rg: ["--files", "-g", "*.py"],
    fs: { path: TREE, pattern: "**/*.py" },
  },
  {
    label: 'search_files "test_*.py"',
    tool: "search_files",
    args: { path: TREE, pattern: "test_*.py" },
    rg: ["--files", "-g", "test_*.py"],
    fs: { path: TREE, pattern: "**/test_*.py" },
  },
  {
    label: 'grep "SMTPRecipientsRefused" (rare)',
    tool: "grep",
    args: { path: TREE, pattern: "SMTPRecipientsRefused" },
    rg: ["-n", "SMTPRecipientsRefused"],
  },
  {
    label: 'grep "def __init__" (common)',
    tool: "grep",
    args: { path: TREE, pattern: "def __init__" },
    rg: ["-n", "def __init__"],
  },
];

const rows: string[][] = [];
for (const each of cases) {
  const withRg = await time(() => callOk(oursRg, each.tool, each.args));
  const walker = await time(() => callOk(oursJs, each.tool, each.args));
  const bare = await time(rg(each.rg));
  let fsMs = "-";
  if (each.fs) {
    fsMs = (await time(() => callOk(fsServer, "search_files", each.fs!))).toFixed(0);
  }
  rows.push([
    each.label,
    withRg.toFixed(0),
    walker.toFixed(0),
    bare.toFixed(0),
    (withRg / bare).toFixed(2),
    (walker / bare).toFixed(2),
    fsMs,
    fsMs === "-" ? "-" : (Number(fsMs) / withRg).toFixed(1),
  ]);
}
await Promise.all([oursRg.close(), oursJs.close(), fsServer.close()]);

const head = [
  "tool",
  "ours+rg ms",
  "ours walker ms",
  "rg ms",
  "ratio rg",
  "ratio walker",
  "server-filesystem ms",
  "fs/ours",
];
console.log(
  `${files} files under ${TREE}; median of ${RUNS} runs after a warm-up; every call through MCP over stdio`,
);
console.log(`| ${head.join(" | ")} |`);
console.log(`|${head.map(() => " --- ").join("|")}|`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
