/**
 * What the sandbox costs a command, timed from the client: `run_shell
 * "true"` through the launch users run (the command `mcp-config` prints:
 * scoped flags, Landlock on, bubblewrap), against the client running
 * `bash -c true` itself. Both are round trips as a client sees them: the
 * MCP call (request, sandbox set-up, guard before and after, answer) and a
 * process spawn with piped output. A writing command runs over overlays
 * (`security/sandbox_overlay.ts`: two bwraps, a mount, a merge); the same
 * call with writes straight to the roots (overlays off: a config outside the
 * root with `"landlock": false`, which leaves the tool workers without
 * libc's attribute calls) shows what the overlay adds.
 *
 * Usage: deno run -A bench/shell_bench.ts [RUNS]
 * Target (issue 13): at most 30 ms added (median).
 *
 * @module
 */

import { launchHost } from "../tests/_mcp.ts";
import { quantile } from "./_measure.ts";

const RUNS = Number(Deno.args[0] ?? 200);
const WARMUP = 10;

/** Milliseconds of each of `runs` calls of `once`. */
async function timed(runs: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return times;
}

/** p50 and p95, in ms with two decimals. */
function row(name: string, times: number[]): string {
  const at = (q: number) => quantile(times, q).toFixed(2);
  return `| ${name} | ${at(0.5)} | ${at(0.95)} |`;
}

/** `run_shell "true"` timed on a host started with (or without) a config of the user's. */
async function shellTimes(root: string, config?: string): Promise<number[]> {
  await using host = await launchHost({ roots: [root], ...(config ? { config } : {}) });
  if (!host.list().some((tool) => tool.name === "run_shell")) {
    throw new Error(`run_shell is not listed: ${host.session.stderr()}`);
  }
  return await timed(RUNS, async () => {
    const result = await host.call("run_shell", { command: "true" });
    if ((result.structuredContent as { exit_code?: number })?.exit_code !== 0) {
      throw new Error(`run_shell "true" failed: ${JSON.stringify(result)}`);
    }
  });
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-shell-bench-" }));
const outside = await Deno.makeTempDir({ prefix: "toolhost-shell-bench-config-" });
try {
  await Deno.writeTextFile(`${outside}/direct.json`, JSON.stringify({ landlock: false }));
  const sandboxed = await shellTimes(root);
  const straight = await shellTimes(root, `${outside}/direct.json`);
  const direct = await timed(RUNS, async () => {
    const output = await new Deno.Command("bash", {
      args: ["-c", "true"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) throw new Error("bash -c true failed");
  });
  const added = quantile(sandboxed, 0.5) - quantile(direct, 0.5);
  const lines = [
    `run_shell "true" against bash -c true, ${RUNS} runs each (ms)\n`,
    "| how | p50 | p95 |\n| --- | --- | --- |",
    row('run_shell "true" (mcp-config launch: over overlays)', sandboxed),
    row('run_shell "true" (writes straight to the root)', straight),
    row("bash -c true (spawned by the client)", direct),
    `\nadded by the sandbox and the MCP round trip (p50): ${added.toFixed(2)} ms`,
    `added by the overlay (p50): ${
      (quantile(sandboxed, 0.5) - quantile(straight, 0.5)).toFixed(2)
    } ms`,
  ];
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
} finally {
  await Deno.remove(root, { recursive: true });
  await Deno.remove(outside, { recursive: true });
}
