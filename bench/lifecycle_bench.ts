/**
 * How soon the server ends once its client closes stdin, in the launch users
 * run (the command `mcp-config` prints, started from `/` with a client's
 * environment, driven by raw JSON-RPC lines so that stdin can be closed and
 * the process watched): from the close to the process's exit status, over N
 * runs of each of three ends of a session:
 *
 * - idle: nothing in flight;
 * - cancelled: a long grep, seen running (progress), cancelled, still busy in
 *   its worker;
 * - cancelled + running: the same, and a second long grep just started.
 *
 * The JS walker serves the greps (`--ripgrep off`), so they run in the tool
 * workers. Usage: deno run -A bench/lifecycle_bench.ts [RUNS]
 * Target (issue 12): under 1 s in every run.
 *
 * @module
 */

import {
  cancelOf,
  exitWithin,
  initialize,
  loggedCalls,
  longGrep,
  progressOf,
  type RawServer,
  slowTree,
  startRaw,
  waitFor,
} from "../tests/host/transports/stdio_raw.ts";

const RUNS = Number(Deno.args[0] ?? 5);

/** How a session ends before its stdin closes. */
type Scenario = "idle" | "cancelled" | "cancelled + running";

/** Bring a fresh server to the state a scenario closes stdin in. */
async function prepare(server: RawServer, scenario: Scenario): Promise<void> {
  await initialize(server);
  if (scenario === "idle") return;
  await server.send(longGrep(2));
  await waitFor(server, "progress of the first grep", progressOf(2));
  await server.send(cancelOf(2));
  if (scenario === "cancelled + running") await server.send(longGrep(3));
}

/** One run: milliseconds from closing stdin to the exit status, and the exit code. */
async function once(root: string, scenario: Scenario): Promise<{ ms: number; code: number }> {
  const server = await startRaw([root], "off");
  await prepare(server, scenario);
  const closed = performance.now();
  await server.closeInput();
  const status = await exitWithin(server.child, 60_000);
  return { ms: performance.now() - closed, code: status.code };
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `min ${sorted[0]!.toFixed(0)}, median ${median.toFixed(0)}, max ${
    sorted[sorted.length - 1]!.toFixed(0)
  } ms`;
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-lifecycle-" }));
try {
  await slowTree(root);
  for (const scenario of ["idle", "cancelled", "cancelled + running"] as const) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { ms, code } = await once(root, scenario);
      if (code !== 0) throw new Error(`${scenario}: the server exited with status ${code}`);
      times.push(ms);
    }
    // deno-lint-ignore no-console
    console.log(`${scenario}: stdin closed → process gone: ${summary(times)} (${RUNS} runs)`);
  }
  const outcomes = (await loggedCalls(`${root}/.toolhost`)).map((call) => call.outcome);
  const counts = Object.entries(Object.groupBy(outcomes, (outcome) => outcome))
    .map(([outcome, each]) => `${outcome} ${each!.length}`).join(", ");
  // deno-lint-ignore no-console
  console.log(`logged calls by outcome: ${counts}`);
} finally {
  await Deno.remove(root, { recursive: true });
}
