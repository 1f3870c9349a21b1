/**
 * A/B of two toolhost checkouts over Streamable HTTP (or stdio with
 * `--stdio`): each started as a user starts it (its own `tests/_mcp.ts`
 * `launchHttp`: `toolhost start --http`, scoped flags, Landlock, the token;
 * with `--stdio`, its `connectStdio`: the command `mcp-config` prints), each
 * with its own project, both called by the same v2 SDK client with a small
 * `read_file`, in interleaved turns (the order reversed every turn), so that
 * the machine's drift hits both.
 * For judging a change to the request path: make a worktree of the commit
 * before it (`git worktree add /tmp/base HEAD~1`, with `node_modules` linked
 * or installed there) and run this with that and the working tree.
 *
 * Usage: deno run -A bench/http_ab.ts [--stdio] DIR_A DIR_B [CALLS]
 * Prints mean, p50 and p90 of each, and B's ratios to A.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HttpHost, StdioSession } from "../tests/_mcp.ts";
import { quantile } from "./_measure.ts";

const stdio = Deno.args.includes("--stdio");
const [dirA, dirB, callsArg] = Deno.args.filter((arg) => arg !== "--stdio");
if (!dirA || !dirB) throw new TypeError("usage: http_ab.ts [--stdio] DIR_A DIR_B [CALLS]");
const CALLS = Number(callsArg ?? 4000);
/** Calls per turn. */
const BLOCK = 250;
const WARM_UP = 300;

interface Side {
  label: string;
  client: Client;
  stop(): Promise<unknown>;
  times: number[];
}

/** Start one checkout's host on a project of its own, and connect a client. */
async function start(label: string, dir: string): Promise<Side> {
  const checkout = await Deno.realPath(dir);
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `toolhost-ab-${label}-` }));
  await Deno.writeTextFile(`${root}/small.txt`, "hello, toolhost\n".repeat(8));
  const launch = (await import(`file://${checkout}/tests/_mcp.ts`)) as {
    launchHttp(roots: string[]): Promise<HttpHost>;
    connectStdio(roots: string[]): Promise<StdioSession>;
  };
  label = `${label} ${checkout}`;
  if (stdio) {
    const session = await launch.connectStdio([root]);
    return { label, client: session.client, stop: () => session.client.close(), times: [] };
  }
  const host = await launch.launchHttp([root]);
  const client = new Client({ name: `ab-${label}`, version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: host.headers },
    }),
  );
  return { label, client, stop: () => client.close().then(() => host.stop()), times: [] };
}

const read = (side: Side) =>
  side.client.callTool({ name: "read_file", arguments: { path: "small.txt" } });

const sides = [await start("A", dirA), await start("B", dirB)];
try {
  for (const side of sides) for (let n = 0; n < WARM_UP; n++) await read(side);
  for (let turn = 0; turn < CALLS / BLOCK; turn++) {
    for (const side of turn % 2 === 0 ? sides : [...sides].reverse()) {
      for (let n = 0; n < BLOCK; n++) {
        const started = performance.now();
        await read(side);
        side.times.push(performance.now() - started);
      }
    }
  }
  const mean = (times: number[]) => times.reduce((sum, each) => sum + each, 0) / times.length;
  const lines = [
    `read_file over ${stdio ? "stdio" : "HTTP"}, ${CALLS} calls each in turns of ${BLOCK} (ms)`,
  ];
  for (const side of sides) {
    const [m, p50, p90] = [mean(side.times), quantile(side.times, 0.5), quantile(side.times, 0.9)];
    lines.push(
      `${side.label.padEnd(40)} mean ${m.toFixed(3)}  p50 ${p50.toFixed(3)}  p90 ${p90.toFixed(3)}`,
    );
  }
  const [a, b] = sides as [Side, Side];
  lines.push(
    `B / A: p50 ${(quantile(b.times, 0.5) / quantile(a.times, 0.5)).toFixed(3)}, mean ${
      (mean(b.times) / mean(a.times)).toFixed(3)
    }`,
  );
  Deno.stdout.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
} finally {
  for (const side of sides) await side.stop();
}
