/**
 * What a host's threads spend on calls that come with pauses between them
 * (an agent that thinks between tool calls, a test that checks each answer),
 * in the launch users run: after one warm-up call and a quiet spell, N small
 * `read_file` calls, each after a pause, and the CPU time each thread of the
 * served process took meanwhile (from `/proc`, Linux only). A tool worker
 * polls for the next call briefly after each answer; where the next call
 * comes later than that, the polls are CPU spent for nothing
 * (`host/workers/_paying_waits.ts`).
 *
 * Usage: deno run -A bench/paced_calls_bench.ts [CALLS] [PAUSE_MS]
 *
 * @module
 */

import { connectStdio } from "../tests/_mcp.ts";

/** Print a line of the result. */
function say(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
}

const CALLS = Number(Deno.args[0] ?? 200);
const PAUSE_MS = Number(Deno.args[1] ?? 10);

/** CPU seconds of each thread of a process, by "tid name". */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const stat = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/stat`);
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(`${task.name} ${name}`, (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return out;
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-paced-" }));
await Deno.writeTextFile(`${root}/a.py`, "x = 1\n");
await using session = await connectStdio([root]);
await session.call("read_file", { path: "a.py" });
await new Promise((resolve) => setTimeout(resolve, 1000));
const before = threads(session.pid!);
for (let i = 0; i < CALLS; i++) {
  await session.call("read_file", { path: "a.py" });
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}
const after = threads(session.pid!);
const byKind = new Map<string, number>();
for (const [key, seconds] of after) {
  const name = key.slice(key.indexOf(" ") + 1);
  const kind = name === "deno"
    ? "main thread"
    : name.startsWith("worker-")
    ? "tool workers"
    : "other";
  byKind.set(kind, (byKind.get(kind) ?? 0) + seconds - (before.get(key) ?? 0));
}
const total = [...byKind.values()].reduce((a, b) => a + b, 0);
say(
  `${CALLS} read_file calls, ${PAUSE_MS} ms apart: ${
    (total * 1000 / CALLS).toFixed(2)
  } ms of CPU per call (` +
    [...byKind].map(([kind, seconds]) => `${kind} ${(seconds * 1000 / CALLS).toFixed(2)}`).join(
      ", ",
    ) +
    ")",
);
await Deno.remove(root, { recursive: true });
