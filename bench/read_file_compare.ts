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

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mcpConfigFor } from "../tests/_mcp.ts";

const CALLS = Number(Deno.args[0] ?? 2000);
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-read-" }));
await Deno.writeTextFile(`${root}/small.txt`, "hello, toolhost\n".repeat(8));

async function measure(label: string, command: string, args: string[]): Promise<number[]> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: "/",
    stderr: "inherit",
    env: { PATH: Deno.env.get("PATH") ?? "" },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const call = () => client.callTool({ name: "read_file", arguments: { path: "small.txt" } });
  for (let i = 0; i < 200; i++) await call(); // warm up
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const result = await call();
    times.push(performance.now() - start);
    if (result.isError) throw new Error(`${label}: ${JSON.stringify(result)}`);
  }
  await client.close();
  return times.sort((a, b) => a - b);
}

function stats(times: number[]) {
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { mean, p50: at(0.5), p95: at(0.95) };
}

try {
  const toolhost = await mcpConfigFor([root]);
  const bare = stats(
    await measure("bare", Deno.execPath(), [
      "run",
      `--allow-read=${root}`,
      new URL("../fixtures/bare_read_server.ts", import.meta.url).pathname,
      root,
    ]),
  );
  const ours = stats(await measure("toolhost", toolhost.command, toolhost.args));
  const row = (name: string, s: ReturnType<typeof stats>) =>
    `${name.padEnd(28)} ${s.mean.toFixed(3).padStart(8)} ${s.p50.toFixed(3).padStart(8)} ${
      s.p95.toFixed(3).padStart(8)
    }`;
  const lines = [
    `read_file round trip over stdio, ${CALLS} sequential calls (ms)`,
    `${"".padEnd(28)} ${"mean".padStart(8)} ${"p50".padStart(8)} ${"p95".padStart(8)}`,
    row("bare SDK server (Deno)", bare),
    row("toolhost (scoped, sandboxed)", ours),
    `ratio (toolhost / bare): mean ${(ours.mean / bare.mean).toFixed(2)}x, p50 ${
      (ours.p50 / bare.p50).toFixed(2)
    }x — target <= 1.5x`,
  ];
  Deno.stdout.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
} finally {
  await Deno.remove(root, { recursive: true });
}
