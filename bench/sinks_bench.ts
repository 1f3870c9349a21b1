/**
 * Side by side: the p95 latency of 1,000 tool calls through the host with no
 * sinks, and with a good sink plus every faulty kind (hangs, exits at start,
 * exits mid-run, writes garbage, takes 1 s). Target (issue 4): within 1.1x.
 * The host is the launch users run (the command `mcp-config` prints, with
 * `EFFERENT_COPY_ENABLE=1` in the client's env for the sinks side), over
 * stdio from a real SDK client.
 *
 * Usage: deno run -A bench/sinks_bench.ts [CALLS] [ROUNDS] [all|MODE,MODE,...]
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { clientEnv, mcpConfigFor } from "../tests/_mcp.ts";

const CALLS = Number(Deno.args[0] ?? 1000);
const ROUNDS = Number(Deno.args[1] ?? 3);
/** Every kind of peer: one good sink and every faulty kind. */
const ALL = "good,hang,exit-start,exit-mid,garbage,slow";
/** The peers listed: `all`, or a comma list of sink_server.ts modes (`good,good,good`). */
const PEERS = Deno.args[2] ?? "all";
const SINK = new URL("../fixtures/sinks/sink_server.ts", import.meta.url).pathname;
const sink = (mode: string, arg?: string) => ({
  command: Deno.execPath(),
  args: ["run", "--allow-write", SINK, mode, ...(arg ? [arg] : [])],
});

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-sinks-bench-" }));
const outside = await Deno.realPath(
  await Deno.makeTempDir({ prefix: "toolhost-sinks-bench-peers-" }),
);
await Deno.writeTextFile(`${root}/a.txt`, "alpha\n".repeat(20));
await Deno.writeTextFile(
  `${outside}/toolhost.json`,
  JSON.stringify({ sinks: { mcpJson: "mcp.json" } }),
);
await Deno.writeTextFile(
  `${outside}/mcp.json`,
  JSON.stringify({
    mcpServers: Object.fromEntries(
      (PEERS === "all" ? ALL : PEERS).split(",").map((mode, i) => [
        `${mode}${i}`,
        sink(
          mode,
          mode === "good" ? `${outside}/good${i}.jsonl` : mode === "exit-mid" ? "50" : undefined,
        ),
      ]),
    ),
  }),
);

interface Run {
  /** Sorted latencies (ms). */
  times: number[];
  /** Sinks found. */
  sinks: number;
}

const launch = await mcpConfigFor([root], { config: `${outside}/toolhost.json` });

async function timed(efferentCopy: boolean): Promise<Run> {
  const transport = new StdioClientTransport({
    ...launch,
    cwd: "/",
    stderr: "pipe",
    env: clientEnv(efferentCopy ? { EFFERENT_COPY_ENABLE: "1" } : {}),
  });
  let said = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (said += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  // Timed once the sinks are known (the held calls delivered), as a session's steady state.
  while (efferentCopy && !/efferent copy: \d+ sinks?/.test(said)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const sinks = Number(said.match(/efferent copy: (\d+) sinks?/)?.[1] ?? 0);
  const call = (i: number) =>
    client.callTool({
      name: i % 5 === 0 ? "get_file_info" : "read_file",
      arguments: { path: i % 11 === 0 ? "nope" : "a.txt" },
    });
  for (let i = 0; i < 100; i++) await call(i);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call(i);
    times.push(performance.now() - start);
  }
  await client.close();
  times.sort((a, b) => a - b);
  return { times, sinks };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function describe(run: Run): string {
  return `p50 ${quantile(run.times, 0.5).toFixed(3)} p95 ${
    quantile(run.times, 0.95).toFixed(3)
  } ms`;
}

const rows: string[] = [];
const ratios: number[] = [];
const pooled = { none: [] as number[], sinks: [] as number[] };
for (let round = 1; round <= ROUNDS; round++) {
  // ABBA order, so that a drift in the machine's load falls on both sides.
  const first = round % 2 === 1;
  const a = await timed(!first);
  const b = await timed(first);
  const [none, sinks] = first ? [a, b] : [b, a];
  pooled.none.push(...none.times);
  pooled.sinks.push(...sinks.times);
  const ratio = quantile(sinks.times, 0.95) / quantile(none.times, 0.95);
  ratios.push(ratio);
  rows.push(
    `round ${round}: no sinks ${describe(none)} | ${sinks.sinks} sinks (${PEERS}) ${
      describe(sinks)
    } | ratio p95 ${ratio.toFixed(2)}x`,
  );
}
pooled.none.sort((x, y) => x - y);
pooled.sinks.sort((x, y) => x - y);
ratios.sort((x, y) => x - y);
rows.push(
  `pooled over ${ROUNDS} rounds of ${CALLS} calls: no sinks ${
    describe({ times: pooled.none, sinks: 0 })
  } | sinks ${describe({ times: pooled.sinks, sinks: 0 })} | ratio p95 ${
    (quantile(pooled.sinks, 0.95) / quantile(pooled.none, 0.95)).toFixed(2)
  }x (median round ${quantile(ratios, 0.5).toFixed(2)}x, worst ${
    ratios.at(-1)!.toFixed(2)
  }x) — target <= 1.1x`,
);
Deno.stdout.writeSync(new TextEncoder().encode(`${rows.join("\n")}\n`));
await Deno.remove(root, { recursive: true });
await Deno.remove(outside, { recursive: true });
Deno.exit(0);
