/**
 * Start-up, side by side: from spawning the server to its `tools/list`
 * answer, for toolhost in the launch users run (the command `mcp-config`
 * prints, from `/`, with a client's environment) and for the official
 * filesystem server (`@modelcontextprotocol/server-filesystem`, under Node,
 * as `npx` would start it, without npx's own look-up). The two take turns,
 * run by run, so that drift on the machine hits both. toolhost's time is
 * split where its stderr says so: spawn → the start-up line ("serving",
 * said once the host is ready) → `initialize` answered → `tools/list`
 * answered. Then `toolhost doctor` for the same root, end to end.
 *
 * Usage: deno run -A bench/startup_bench.ts [RUNS]
 * Target (issue 31): toolhost's median at most 2× the filesystem server's;
 * `doctor` at most 5 s.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";

const RUNS = Number(Deno.args[0] ?? 10);
const REPO = new URL("../", import.meta.url);
const FILESYSTEM = new URL(
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  REPO,
).pathname;

/** Where one start's time went, in ms from the spawn. */
interface Start {
  /** The start-up line on stderr (toolhost only). */
  ready?: number;
  initialized: number;
  listed: number;
}

async function start(command: string, args: string[], readyLine?: RegExp): Promise<Start> {
  const began = performance.now();
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: "/",
    stderr: "pipe",
    env: clientEnv(),
  });
  let ready: number | undefined;
  let said = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    said += new TextDecoder().decode(chunk);
    if (ready === undefined && readyLine?.test(said)) ready = performance.now() - began;
  });
  const client = new Client({ name: "startup-bench", version: "1" });
  await client.connect(transport);
  const initialized = performance.now() - began;
  const { tools } = await client.listTools();
  const listed = performance.now() - began;
  if (tools.length === 0) throw new Error(`${command}: no tools listed`);
  await client.close();
  return { ...(ready === undefined ? {} : { ready }), initialized, listed };
}

/** One line of the report. */
function report(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-startup-" }));
try {
  await Deno.writeTextFile(`${root}/app.py`, "def main():\n    return 1\n");
  const toolhost = await mcpConfigFor([root]);
  const ours: Start[] = [];
  const theirs: Start[] = [];
  const filesystem = () => start("node", [FILESYSTEM, root]);
  const host = () => start(toolhost.command, toolhost.args, /toolhost: serving /);
  await filesystem(); // warm the file cache for both
  await host();
  for (let run = 0; run < RUNS; run++) {
    // ABBA: neither always goes first.
    if (run % 2 === 0) ours.push(await host()), theirs.push(await filesystem());
    else theirs.push(await filesystem()), ours.push(await host());
  }
  const ms = (value: number) => `${Math.round(value)} ms`;
  const fsListed = median(theirs.map((each) => each.listed));
  const ourListed = median(ours.map((each) => each.listed));
  report(`runs: ${RUNS} each, medians; cores: ${navigator.hardwareConcurrency}`);
  report(`server-filesystem: tools/list answered at ${ms(fsListed)}`);
  report(
    `toolhost: start-up line at ${ms(median(ours.map((each) => each.ready ?? NaN)))}, ` +
      `initialize at ${ms(median(ours.map((each) => each.initialized)))}, ` +
      `tools/list at ${ms(ourListed)}`,
  );
  report(`ratio toolhost / server-filesystem: ${(ourListed / fsListed).toFixed(2)}×`);

  const doctorTimes: number[] = [];
  for (let run = 0; run < Math.min(RUNS, 3); run++) {
    const began = performance.now();
    const output = await new Deno.Command(new URL("bin/toolhost", REPO).pathname, {
      args: ["doctor", "--root", root],
      cwd: "/",
      env: clientEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    doctorTimes.push(performance.now() - began);
    if (!output.success) {
      report(new TextDecoder().decode(output.stderr));
      throw new Error("toolhost doctor failed");
    }
  }
  report(`toolhost doctor: ${ms(median(doctorTimes))} (median of ${doctorTimes.length})`);
} finally {
  await Deno.remove(root, { recursive: true });
}
