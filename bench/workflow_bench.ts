/**
 * Side by side: the seven-task agent workflow of issue 12 (layout, find
 * definitions, read functions, edit, find usages, rename across 11 files,
 * move files) on a real project, done by a scripted agent with toolhost's
 * tools and by one with `@modelcontextprotocol/server-filesystem`'s, each
 * through a real MCP client over stdio. It counts calls, characters of
 * output and wall time per task, and checks every task's outcome against
 * Python's own `ast`/`tokenize` and the files on disk.
 *
 * Run: `deno run -A bench/workflow_bench.ts [--runs N] [--forget]` (default
 * 3 passes each, alternating which server goes first). server-filesystem's
 * agent remembers every file it has read across the tasks (as a model's
 * context does); with `--forget` it starts each task with a fresh context,
 * keeping only earlier answers (`bench/_workflow_filesystem.ts`).
 *
 * The project (`bench/_workflow_project.ts`): CPython's `multiprocessing`
 * package copied to `mproc/` in a temp directory; a fresh copy per pass.
 * toolhost is started as `mcp-config` prints it (`tests/_mcp.ts`), from `/`
 * with a client's minimal environment; server-filesystem as its README says
 * (`npx -y @modelcontextprotocol/server-filesystem DIR`), through Deno's
 * `npm:` specifier at the version `deno.json` pins, from the checkout.
 *
 * @module
 */

// deno-lint-ignore-file no-console

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";
import { FilesystemAgent } from "./_workflow_filesystem.ts";
import { MeteredClient } from "./_workflow_meter.ts";
import { buildProject } from "./_workflow_project.ts";
import { type Pass, report } from "./_workflow_report.ts";
import { WorkflowRun } from "./_workflow_run.ts";
import type { WorkflowAgent } from "./_workflow_tasks.ts";
import { ToolhostAgent } from "./_workflow_toolhost.ts";

const CHECKOUT = new URL("..", import.meta.url).pathname;
const FS_SERVER = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
const RUNS = Number(Deno.args[Deno.args.indexOf("--runs") + 1] ?? 3) || 3;
const FORGET = Deno.args.includes("--forget");
const LABELS = ["toolhost", "server-filesystem"] as const;
type Label = typeof LABELS[number];

interface Started {
  client: Client;
  tools: string[];
  startMs: number;
  listChars: number;
}

/** Spawn a server, connect, list its tools; the time from spawn to the list. */
async function start(command: string, args: string[], cwd: string): Promise<Started> {
  const began = performance.now();
  const client = new Client({ name: "workflow-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command, args, cwd, env: clientEnv(), stderr: "ignore" }),
  );
  const { tools } = await client.listTools();
  return {
    client,
    tools: tools.map((tool: { name: string }) => tool.name),
    startMs: performance.now() - began,
    listChars: JSON.stringify(tools).length,
  };
}

/** Start one server for a project: toolhost as `mcp-config` prints it, or server-filesystem. */
async function startServer(label: Label, dir: string): Promise<Started> {
  if (label === "toolhost") {
    const { command, args } = await mcpConfigFor([dir]);
    return await start(command, args, "/");
  }
  return await start(Deno.execPath(), ["run", "-A", FS_SERVER, dir], CHECKOUT);
}

/**
 * A new temp directory whose path has the same length every time
 * (server-filesystem shows absolute paths, so its character counts would
 * otherwise vary with the random part of the name).
 */
async function projectDir(): Promise<string> {
  const tmp = await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp");
  const dir = `${tmp}/toolhost-workflow-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(dir); // throws if it exists: never reuse someone else's directory
  return dir;
}

/** One pass: a fresh project, a fresh server, the seven tasks. */
async function pass(label: Label): Promise<Pass> {
  const dir = await projectDir();
  try {
    const built = await buildProject(dir);
    const server = await startServer(label, dir);
    try {
      const client = new MeteredClient(server.client, server.tools);
      const agent: WorkflowAgent = label === "toolhost"
        ? new ToolhostAgent(client)
        : new FilesystemAgent(client, dir, { forget: FORGET });
      const result = await new WorkflowRun(agent, client, dir, built).run();
      const { startMs, listChars } = server;
      return { ...result, startMs, listChars, toolCount: server.tools.length };
    } finally {
      await server.client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const passes = new Map<Label, Pass[]>(LABELS.map((label) => [label, []]));
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 === 0 ? LABELS : [...LABELS].reverse();
  for (const label of order) {
    const done = await pass(label);
    passes.get(label)!.push(done);
    const failed = done.rows.filter((row) => row.outcome !== "ok").length;
    console.error(
      `pass ${run + 1} ${label}: ${failed} task(s) not ok; package ${done.runs.slice(0, 60)}`,
    );
  }
}
console.log(
  `server-filesystem's agent ${
    FORGET ? "starts each task with a fresh context" : "remembers what it read"
  }\n`,
);
console.log(report(passes));
