/**
 * What hostile input costs everyone else, in the launch users run (the
 * command `mcp-config` prints, driven by the SDK's client over stdio):
 *
 * 1. `read_file` latency, in the same session and in a concurrent one (a
 *    second client, its own host on the same roots), while a session asks
 *    for replies far over the bound (`grep` with 2,000 matches of long lines
 *    and `get_tree` over 20,000 entries, back to back).
 * 2. The same while a 50 MB request streams in and is refused.
 * 3. `read_file` latency right after a burst of oversized and too-deep requests.
 *
 * Usage: deno run -A bench/hostile_bench.ts [READS]
 * Target (issue 10): the concurrent session's read_file p95 under 50 ms; a
 * read_file after the burst within 1 s.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, type StdioSession } from "../tests/_mcp.ts";

const READS = Number(Deno.args[0] ?? 300);
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-hostile-" }));
for (let d = 0; d < 40; d++) {
  await Deno.mkdir(`${root}/d${d}`);
  for (let f = 0; f < 500; f++) {
    await Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, `needle ${"x".repeat(400)}\n`.repeat(3));
  }
}
await Deno.writeTextFile(`${root}/small.txt`, "hello, toolhost\n".repeat(8));

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1]! };
}

/** Time `read_file`s one after another until `stop` resolves (at least `min` of them). */
async function readWhile(client: Client, stop: Promise<unknown>, min: number): Promise<number[]> {
  let done = false;
  void stop.finally(() => (done = true));
  const times: number[] = [];
  while (!done || times.length < min) {
    const start = performance.now();
    const result = await client.callTool({ name: "read_file", arguments: { path: "small.txt" } });
    times.push(performance.now() - start);
    if (result.isError) throw new Error(JSON.stringify(result));
  }
  return times;
}

async function bigReplies(session: StdioSession, rounds: number): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    const grep = await session.call("grep", { pattern: "needle", limit: 2000 });
    const tree = await session.call("get_tree", { path: ".", max_depth: 3 });
    bytes = Math.max(bytes, JSON.stringify(grep).length, JSON.stringify(tree).length);
  }
  return bytes;
}

await using attacker = await connectStdio([root]);
await using other = await connectStdio([root]);
const rows: Array<Record<string, unknown>> = [];
await readWhile(other.client, Promise.resolve(), 50); // warm up
await readWhile(attacker.client, Promise.resolve(), 50);

{
  const baseline = await readWhile(other.client, Promise.resolve(), READS);
  rows.push({ case: "idle (baseline)", session: "other", ...stats(baseline) });
}
{
  const flood = bigReplies(attacker, 10);
  const same = readWhile(attacker.client, flood, READS);
  const concurrent = readWhile(other.client, flood, READS);
  const largest = await flood;
  rows.push({
    case: `replies over the bound (largest ${largest} B)`,
    session: "same",
    ...stats(await same),
  });
  rows.push({ case: "replies over the bound", session: "concurrent", ...stats(await concurrent) });
}
{
  const huge = attacker.call("write_file", {
    path: "big.txt",
    content: "x".repeat(50 * 1024 * 1024),
  })
    .catch((error) => error);
  const same = readWhile(attacker.client, huge, READS / 3);
  const concurrent = readWhile(other.client, huge, READS / 3);
  const refused = await huge;
  rows.push({
    case: `50 MB request (${String(refused).slice(0, 40)}…)`,
    session: "same",
    ...stats(await same),
  });
  rows.push({ case: "50 MB request", session: "concurrent", ...stats(await concurrent) });
}
{
  let deep: unknown = 0;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  const burst = Array.from(
    { length: 20 },
    (_, i) =>
      attacker.call("read_file", { path: i % 2 ? deep : "y".repeat(5 * 1024 * 1024) }).catch(
        () => {},
      ),
  );
  await Promise.all(burst);
  const after = await readWhile(attacker.client, Promise.resolve(), 20);
  rows.push({ case: "right after 20 oversized/deep requests", session: "same", ...stats(after) });
}

const format = (ms: unknown) => typeof ms === "number" ? ms.toFixed(1) : String(ms);
const lines = [
  "| case | session | reads | p50 ms | p95 ms | max ms |",
  "| --- | --- | --- | --- | --- | --- |",
];
for (const row of rows) {
  lines.push(
    `| ${row.case} | ${row.session} | ${row.n} | ${format(row.p50)} | ${format(row.p95)} | ${
      format(row.max)
    } |`,
  );
}
Deno.stdout.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
await Deno.remove(root, { recursive: true });
