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
 * toolhost is timed twice: as a client starts it again and again (the start
 * runs the line its launch record keeps, `host/cli/launch_record.ts`), and
 * with the record removed before each start, as after a change to what the
 * launcher reads (the launcher works the line out, and records it).
 *
 * Usage: deno run -A bench/startup_bench.ts [RUNS]
 * Target (issue 31): toolhost's median at most 2× the filesystem server's;
 * `doctor` at most 5 s.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
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

/** Remove the launch records whose key names this root: the next start runs the launcher. */
async function forgetRecord(root: string): Promise<void> {
  const records = new URL("node_modules/.toolhost-launch/", REPO).pathname;
  for (const entry of [...Deno.readDirSync(records)]) {
    const path = `${records}${entry.name}`;
    const text = await Deno.readTextFile(path).catch(() => "");
    if (/^rec_key='([^']*)'$/m.exec(text)?.[1]?.split("\n").includes(root)) await Deno.remove(path);
  }
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
  const computed: Start[] = [];
  const theirs: Start[] = [];
  const filesystem = () => start("node", [FILESYSTEM, root]);
  const host = () => start(toolhost.command, toolhost.args, /toolhost: serving /);
  const launcher = async () => (await forgetRecord(root), await host());
  await filesystem(); // warm the file cache for both
  await host();
  // Its files settle: the launcher records nothing that changed within its first second.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await host();
  const series = [
    () => host().then((each) => ours.push(each)),
    () => filesystem().then((each) => theirs.push(each)),
    () => launcher().then((each) => computed.push(each)),
  ];
  for (let run = 0; run < RUNS; run++) {
    // Each series goes first, second and third in turn.
    for (let i = 0; i < series.length; i++) await series[(run + i) % series.length]!();
  }
  const ms = (value: number) => `${Math.round(value)} ms`;
  const fsListed = median(theirs.map((each) => each.listed));
  report(`runs: ${RUNS} each, medians; cores: ${navigator.hardwareConcurrency}`);
  report(`server-filesystem: tools/list answered at ${ms(fsListed)}`);
  for (const [label, starts] of [["toolhost", ours], ["toolhost, launcher", computed]] as const) {
    const listed = median(starts.map((each) => each.listed));
    report(
      `${label}: start-up line at ${ms(median(starts.map((each) => each.ready ?? NaN)))}, ` +
        `initialize at ${ms(median(starts.map((each) => each.initialized)))}, ` +
        `tools/list at ${ms(listed)}; ratio to server-filesystem ${
          (listed / fsListed).toFixed(2)
        }×`,
    );
  }

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
