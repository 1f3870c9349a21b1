/**
 * Side by side: a small `read_file` through the whole toolhost (scoped
 * process, dispatcher, worker, resolver, anchored read) against a bare SDK
 * server that only reads the file, both under Deno, both over stdio.
 *
 * Usage: deno run -A bench/read_file_compare.ts [CALLS]
 * Target (issue 2): toolhost at most 1.5x the bare server's round trip.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mcpConfigFor } from "../tests/_mcp.ts";

const CALLS = Number(Deno.args[0] ?? 2000);
/** Calls per block: the two servers take turns, block by block, so drift on the machine hits both. */
const BLOCK = 250;
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-read-" }));
await Deno.writeTextFile(`${root}/small.txt`, "hello, toolhost\n".repeat(8));

interface Server {
  label: string;
  client: Client;
  times: number[];
}

async function connect(label: string, command: string, args: string[]): Promise<Server> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: "/",
    stderr: "inherit",
    env: { PATH: Deno.env.get("PATH") ?? "" },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { label, client, times: [] };
}

async function run(server: Server, calls: number, keep: boolean): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const result = await server.client.callTool({
      name: "read_file",
      arguments: { path: "small.txt" },
    });
    if (keep) server.times.push(performance.now() - start);
    if (result.isError) throw new Error(`${server.label}: ${JSON.stringify(result)}`);
  }
}

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { mean, p50: at(0.5), p95: at(0.95) };
}

const servers: Server[] = [];
try {
  const toolhost = await mcpConfigFor([root]);
  servers.push(
    await connect("bare", Deno.execPath(), [
      "run",
      `--allow-read=${root}`,
      new URL("../fixtures/bare_read_server.ts", import.meta.url).pathname,
      root,
    ]),
    await connect("toolhost", toolhost.command, toolhost.args),
  );
  for (const server of servers) await run(server, 200, false); // warm up
  const ratios: number[] = [];
  for (let done = 0; done < CALLS; done += BLOCK) {
    const block = Math.min(BLOCK, CALLS - done);
    // ABBA within each pair of blocks, so neither server always goes first.
    const order = (done / BLOCK) % 2 === 0 ? servers : [...servers].reverse();
    const before = servers.map((server) => server.times.length);
    for (const server of order) await run(server, block, true);
    const [bare, ours] = servers.map((server, i) => stats(server.times.slice(before[i])).mean);
    ratios.push(ours! / bare!);
  }
  const [bare, ours] = servers.map((server) => stats(server.times));
  const row = (name: string, s: ReturnType<typeof stats>) =>
    `${name.padEnd(28)} ${s.mean.toFixed(3).padStart(8)} ${s.p50.toFixed(3).padStart(8)} ${
      s.p95.toFixed(3).padStart(8)
    }`;
  const sortedRatios = [...ratios].sort((a, b) => a - b);
  const lines = [
    `read_file round trip over stdio, ${CALLS} sequential calls each, in turns of ${BLOCK} (ms)`,
    `${"".padEnd(28)} ${"mean".padStart(8)} ${"p50".padStart(8)} ${"p95".padStart(8)}`,
    row("bare SDK server (Deno)", bare!),
    row("toolhost (scoped, sandboxed)", ours!),
    `ratio per turn (toolhost / bare, means): ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
    `ratio (toolhost / bare): mean ${(ours!.mean / bare!.mean).toFixed(2)}x, p50 ${
      (ours!.p50 / bare!.p50).toFixed(2)
    }x, median turn ${
      sortedRatios[Math.floor(sortedRatios.length / 2)]!.toFixed(2)
    }x — target <= 1.5x`,
  ];
  Deno.stdout.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
} finally {
  await Promise.all(servers.map((server) => server.client.close()));
  await Deno.remove(root, { recursive: true });
}
