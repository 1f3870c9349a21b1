/**
 * Side by side: the p95 latency of 1,000 tool calls through the host with no
 * sinks, and with a good sink plus every faulty kind (hangs, exits at start,
 * exits mid-run, writes garbage, takes 1 s). Target (issue 4): within 1.1x.
 *
 * Usage: deno run -A --unstable-worker-options bench/sinks_bench.ts [CALLS] [ROUNDS]
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createHost } from "../host/host.ts";
import { createGateway } from "../host/gateway.ts";

const CALLS = Number(Deno.args[0] ?? 1000);
const ROUNDS = Number(Deno.args[1] ?? 3);
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
    mcpServers: {
      good: sink("good", `${outside}/good.jsonl`),
      hang: sink("hang"),
      exitsAtStart: sink("exit-start"),
      exitsMidRun: sink("exit-mid", "50"),
      garbage: sink("garbage"),
      slow: sink("slow"),
    },
  }),
);

async function p95(efferentCopy: boolean): Promise<{ p50: number; p95: number; sinks: number }> {
  const host = await createHost({
    roots: [root],
    configFile: `${outside}/toolhost.json`,
    ripgrep: "off",
    logger: { log: () => {} },
    efferentCopy,
  });
  const sinks = await host.sinksReady();
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createGateway(host).connect(serverSide);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(clientSide);
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
  await host.close();
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(CALLS * 0.5)]!, p95: times[Math.floor(CALLS * 0.95)]!, sinks };
}

const rows: string[] = [];
let worst = 0;
for (let round = 1; round <= ROUNDS; round++) {
  const none = await p95(false);
  const faulty = await p95(true);
  worst = Math.max(worst, faulty.p95 / none.p95);
  rows.push(
    `round ${round}: no sinks p50 ${none.p50.toFixed(3)} p95 ${
      none.p95.toFixed(3)
    } ms | ${faulty.sinks} sinks (1 good, 5 faulty peers listed) p50 ${faulty.p50.toFixed(3)} p95 ${
      faulty.p95.toFixed(3)
    } ms | ratio p95 ${(faulty.p95 / none.p95).toFixed(2)}x`,
  );
}
rows.push(
  `worst p95 ratio ${worst.toFixed(2)}x over ${ROUNDS} rounds of ${CALLS} calls — target <= 1.1x`,
);
Deno.stdout.writeSync(new TextEncoder().encode(`${rows.join("\n")}\n`));
await Deno.remove(root, { recursive: true });
await Deno.remove(outside, { recursive: true });
Deno.exit(0);
