/**
 * Every bench of `bench/README.md` on two checkouts, alternating: for a
 * change that should move no number (a refactor), run each bench on the
 * commit before it and after it, in turns (before, after, before, after…),
 * so that the machine's drift hits both sides alike. Each run is the bench
 * script itself, started in its own checkout (`deno run -A bench/NAME.ts
 * ARGS` with that checkout as the working directory), so each side measures
 * its own launch as `mcp-config` prints it. The corpora (`bench/.data`) are
 * shared by a bind mount (a symbolic link is not enough: the benches pass
 * paths under it, which the host resolves to the other checkout and refuses
 * as outside its roots).
 *
 * Usage:
 *   git worktree add /tmp/before BASE && (cd /tmp/before && deno install)
 *   mkdir /tmp/before/bench/.data && mount --bind bench/.data /tmp/before/bench/.data
 *   deno run -A bench/before_after.ts /tmp/before . [--rounds 2] [--only a,b] [--out DIR]
 *
 * Writes each run's whole output to `DIR/NAME.SIDE.ROUND.txt` (default
 * `/tmp/before_after`) and prints, per bench, the wall time of each run and
 * the lines of its output that differ between the sides' first rounds, for
 * reading the numbers side by side. It judges nothing: the reader compares.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** A bench and the arguments that keep it to a few minutes on 2 cores. */
interface Spec {
  name: string;
  args: string[];
  /** Extra `deno run` flags the README gives it. */
  flags?: string[];
}

/** The benches, with the sizes `bench/README.md` measured at or a smaller, stated one. */
const SPECS: readonly Spec[] = [
  { name: "read_file_compare", args: ["3000"] },
  { name: "http_read_compare", args: ["2000"] },
  { name: "startup_bench", args: ["5"] },
  { name: "search_bench", args: ["--runs", "2"] },
  { name: "python_bench", args: ["--runs", "3"] },
  { name: "regex_bench", args: [] },
  { name: "hostile_bench", args: [] },
  { name: "sinks_bench", args: ["500", "2"] },
  { name: "lifecycle_bench", args: [] },
  { name: "idle_worker_bench", args: [], flags: ["--unstable-worker-options"] },
  { name: "paced_calls_bench", args: [] },
  { name: "shell_bench", args: ["100"] },
  { name: "overlay_bench", args: [] },
  { name: "fetch_bench", args: ["100"] },
  { name: "ts_rename_bench", args: [] },
  { name: "symbols_bench", args: ["--runs", "2"] },
  { name: "ts_oracle_bench", args: [] },
  { name: "py_oracle_bench", args: [] },
  { name: "scale_bench", args: ["--sizes", "2000"] },
  { name: "workflow_bench", args: ["--runs", "1"] },
];

/** One run of one bench in one checkout: its output and wall time. */
async function runOnce(dir: string, spec: Spec): Promise<{ output: string; seconds: number }> {
  const started = performance.now();
  const { stdout, stderr, code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(spec.flags ?? []), `bench/${spec.name}.ts`, ...spec.args],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const output = `${decode(stdout)}${decode(stderr)}${code === 0 ? "" : `\n(exit ${code})\n`}`;
  return { output, seconds };
}

/** The lines of `a` and `b` that differ, paired in order (numbers move; words mostly do not). */
function differing(a: string, b: string): string[] {
  const left = a.split("\n");
  const right = b.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] === right[i]) continue;
    out.push(`  before: ${left[i] ?? ""}`, `  after:  ${right[i] ?? ""}`);
  }
  return out;
}

/** Refuse a `before` checkout whose corpora are missing or only a link to the other's. */
async function checkCorpora(before: string): Promise<void> {
  const target = `${before}/bench/.data`;
  const info = await Deno.lstat(target).catch(() => undefined);
  if (info?.isDirectory) return;
  throw new Error(
    `${target} is ${info ? "a link" : "missing"}: bind-mount the corpora there ` +
      `(mkdir ${target} && mount --bind bench/.data ${target}); a link sends the benches' paths ` +
      `to the other checkout, outside the roots its host serves`,
  );
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "2" },
      only: { type: "string" },
      out: { type: "string", default: "/tmp/before_after" },
    },
    allowPositionals: true,
  });
  const [before, after] = positionals;
  if (!before || !after) {
    throw new TypeError("usage: before_after.ts BEFORE_DIR AFTER_DIR [--rounds N] [--only a,b]");
  }
  const only = values.only?.split(",");
  const specs = SPECS.filter((spec) => !only || only.includes(spec.name));
  await checkCorpora(before);
  await Deno.mkdir(values.out, { recursive: true });
  for (const spec of specs) {
    const first: Record<string, string> = {};
    const times: string[] = [];
    for (let round = 1; round <= Number(values.rounds); round++) {
      // The order flips every round, so neither side always runs on a warmer machine.
      const sides = round % 2 ? [["before", before], ["after", after]] : [
        ["after", after],
        ["before", before],
      ];
      for (const [side, dir] of sides) {
        const { output, seconds } = await runOnce(dir!, spec);
        await Deno.writeTextFile(`${values.out}/${spec.name}.${side}.${round}.txt`, output);
        first[side!] ??= output;
        times.push(`${side} ${seconds.toFixed(0)} s`);
      }
    }
    // deno-lint-ignore no-console
    console.log(`## ${spec.name} ${spec.args.join(" ")}: ${times.join(", ")}`);
    // deno-lint-ignore no-console
    console.log(differing(first.before ?? "", first.after ?? "").join("\n"));
  }
}

if (import.meta.main) await main();
