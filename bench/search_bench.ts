/**
 * Side-by-side speed of `search_files` and `grep` through the whole host (a
 * real MCP client over stdio), against ripgrep and against
 * `@modelcontextprotocol/server-filesystem`, on a tree of copies of python3's
 * standard library (made under `bench/.data/` when missing, ≥ 50,000 files).
 *
 * Run: `deno run -A bench/search_bench.ts [--runs N]`
 *
 * Ours is the launch users run: the command `mcp-config` prints (the
 * launcher, which becomes `serve` with scoped flags, Landlock in the
 * workers), started from `/` with a client's minimal environment. Rows: ours
 * (ripgrep found on the PATH, run by the confined worker), ours with the JS
 * walker (`mcp-config --ripgrep off`), bare `rg`, and server-filesystem's
 * `search_files`. Each of our calls says which engine served it; the bench
 * stops if ripgrep did not serve the first row.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";

const HERE = new URL(".", import.meta.url).pathname;
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

/** Connect to a server; ours as an MCP client starts it (from `/`, a minimal environment). */
async function connect(command: string, args: string[], asClient = true): Promise<Client> {
  const client = new Client({ name: "search-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      stderr: "ignore",
      ...(asClient ? { cwd: "/", env: clientEnv() } : {}),
    }),
  );
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

/** Call a tool; throw on an error result. Returns which engine served it (ours), if it says. */
async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string | undefined> {
  const result = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
  if (result.isError) {
    const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
    throw new Error(`${name} failed: ${text.slice(0, 300)}`);
  }
  return (result.structuredContent as { engine?: string } | undefined)?.engine;
}

const files = await ensureTree();
const launch = await mcpConfigFor([TREE]);
const launchWalker = await mcpConfigFor([TREE], { ripgrep: "off" });
const oursRg = await connect(launch.command, launch.args);
const oursJs = await connect(launchWalker.command, launchWalker.args);
const fsServer = await connect("deno", [
  "run",
  "-A",
  "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
  TREE,
], false);
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
  const engine = await callOk(oursRg, each.tool, each.args);
  if (engine !== "ripgrep") throw new Error(`${each.label}: ripgrep did not serve (${engine})`);
  if (await callOk(oursJs, each.tool, each.args) !== "walker") {
    throw new Error(`${each.label}: the walker row used ripgrep`);
  }
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
  `${files} files under ${TREE}; median of ${RUNS} runs after a warm-up; every call through MCP over stdio; ours started as mcp-config prints it (scoped flags, Landlock)`,
);
console.log(`| ${head.join(" | ")} |`);
console.log(`|${head.map(() => " --- ").join("|")}|`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
