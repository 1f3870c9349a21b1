/**
 * Side by side over Streamable HTTP: a small `read_file` through the whole
 * toolhost (started as a user starts it: `toolhost start --http`, scoped
 * flags, Landlock, token checked, dispatcher, worker, resolver) against a bare
 * v2 SDK server (what toolhost serves with) that only reads the file, both
 * under Deno, both reached by the same v2 SDK client (2025-11-25 sessions),
 * in interleaved turns. An extra row calls
 * toolhost with the v2 client at 2026-07-28 (one stateless request per call),
 * and one a toolhost whose config file (outside its root) turns
 * OpenTelemetry export on, to a collector this bench serves on loopback (it
 * takes the spans and metrics and drops them), beside a control started the
 * same way with an empty config file: what export costs a call, apart from
 * what a second host's place in the turns costs.
 * Also: each server's start time (spawn to listening) and resident memory
 * after the run.
 *
 * Usage: deno run -A bench/http_read_compare.ts [CALLS]
 * Target (issue 14): toolhost's p50 at most 1.5x the bare v2 server's; aim: p50 under 1 ms.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type HttpHost, launchHttp } from "../tests/_mcp.ts";
import { quantile, treeRss } from "./_measure.ts";

const CALLS = Number(Deno.args[0] ?? 4000);
/** Calls per turn: the servers take turns, so drift on the machine hits them all. */
const BLOCK = 250;
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-http-" }));
await Deno.writeTextFile(`${root}/small.txt`, "hello, toolhost\n".repeat(8));
/** The hosts with a config file (export on, and its control): their roots and config files. */
const configuredDirs: string[] = [];
let exported = 0;
const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  exported += (await request.arrayBuffer()).byteLength;
  return Response.json({});
});

interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

interface Row {
  label: string;
  caller: Caller;
  times: number[];
  pid: number;
  startMs: number;
}

/** Start the bare server; its URL, process and start time. */
async function startBare() {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${root}`,
      "--allow-net=127.0.0.1",
      new URL("../fixtures/bare_read_http_server.ts", import.meta.url).pathname,
      root,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return { url: value!.trim(), child, startMs: performance.now() - started };
}

async function legacyCaller(url: string, headers: Record<string, string> = {}): Promise<Caller> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client as unknown as Caller;
}

async function modernCaller(url: string, headers: Record<string, string>): Promise<Caller> {
  const client = new Client({ name: "bench", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client as unknown as Caller;
}

/** A toolhost with a config file outside its own root: a row, and the host to stop. */
async function launchConfigured(
  label: string,
  file: Record<string, unknown>,
): Promise<{ host: HttpHost; row: Row }> {
  const ownRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost-bench-otlp-" }));
  const configDir = await Deno.makeTempDir({ prefix: "toolhost-bench-otlp-config-" });
  configuredDirs.push(ownRoot, configDir);
  await Deno.writeTextFile(`${ownRoot}/small.txt`, "hello, toolhost\n".repeat(8));
  const config = `${configDir}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify(file));
  const started = performance.now();
  const host = await launchHttp([ownRoot], { config });
  const startMs = performance.now() - started;
  return { host, row: hostRow(label, host, startMs, await legacyCaller(host.url, host.headers)) };
}

/** A row for a toolhost started with `launchHttp`, called through `caller`. */
function hostRow(label: string, host: HttpHost, startMs: number, caller: Caller): Row {
  return { label, caller, times: [], pid: host.process.pid, startMs };
}

async function run(row: Row, calls: number, keep: boolean): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const result = await row.caller.callTool({
      name: "read_file",
      arguments: { path: "small.txt" },
    }) as { isError?: boolean };
    if (keep) row.times.push(performance.now() - start);
    if (result.isError) throw new Error(`${row.label}: ${JSON.stringify(result)}`);
  }
}

function stats(times: number[]) {
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { mean, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const rows: Row[] = [];
const stops: Array<() => Promise<unknown>> = [];
try {
  const bare = await startBare();
  stops.push(async () => {
    bare.child.kill("SIGTERM");
    await bare.child.status;
  });
  rows.push({
    label: "bare v2 SDK server",
    caller: await legacyCaller(bare.url),
    times: [],
    pid: bare.child.pid,
    startMs: bare.startMs,
  });
  const started = performance.now();
  const host = await launchHttp([root]);
  const startMs = performance.now() - started;
  stops.push(() => host.stop());
  rows.push(
    hostRow(
      "toolhost (scoped, 2025-11-25)",
      host,
      startMs,
      await legacyCaller(host.url, host.headers),
    ),
  );
  rows.push(
    hostRow("toolhost (2026-07-28)", host, startMs, await modernCaller(host.url, host.headers)),
  );
  const endpoint = `http://127.0.0.1:${collector.addr.port}`;
  for (
    const [label, file] of [
      ["toolhost, export off (control)", {}],
      ["toolhost, OTLP export on", { telemetry: { otlp: { endpoint } } }],
    ] as const
  ) {
    const configured = await launchConfigured(label, file);
    stops.push(() => configured.host.stop());
    rows.push(configured.row);
  }
  for (const row of rows) await run(row, 300, false); // warm up
  for (let done = 0, turn = 0; done < CALLS; done += BLOCK, turn++) {
    const block = Math.min(BLOCK, CALLS - done);
    for (const row of turn % 2 === 0 ? rows : [...rows].reverse()) await run(row, block, true);
  }
  const line = (row: Row, s: ReturnType<typeof stats>, rss: number) =>
    `${row.label.padEnd(32)} ${s.mean.toFixed(3).padStart(7)} ${s.p50.toFixed(3).padStart(7)} ${
      s.p99.toFixed(3).padStart(7)
    } ${row.startMs.toFixed(0).padStart(8)} ${rss.toFixed(0).padStart(7)}`;
  const all = rows.map((row) => stats(row.times));
  // The toolhost rows' process tree holds its sandbox's processes too (none run here).
  const rss = rows.map((row) => treeRss(row.pid) / (1024 * 1024));
  const [bareV2, ours, , control, withExport] = all;
  const lines = [
    `read_file round trip over Streamable HTTP, ${CALLS} sequential calls each, in turns of ${BLOCK}`,
    `${"".padEnd(32)} ${"mean".padStart(7)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${
      "start ms".padStart(8)
    } ${"RSS MB".padStart(7)}`,
    ...rows.map((row, i) => line(row, all[i]!, rss[i]!)),
    `toolhost / bare v2 (2025-11-25 rows): p50 ${(ours!.p50 / bareV2!.p50).toFixed(2)}x, mean ${
      (ours!.mean / bareV2!.mean).toFixed(2)
    }x, p99 ${(ours!.p99 / bareV2!.p99).toFixed(2)}x — target p50 <= 1.5x; aim p50 < 1 ms`,
    `toolhost with OTLP export on / bare v2: p50 ${
      (withExport!.p50 / bareV2!.p50).toFixed(2)
    }x, mean ${
      (withExport!.mean / bareV2!.mean).toFixed(2)
    }x (export off: the toolhost row); ${exported} bytes of spans and metrics reached the collector`,
    `toolhost with OTLP export on / its control (same place, export off): p50 ${
      (withExport!.p50 / control!.p50).toFixed(2)
    }x, mean ${(withExport!.mean / control!.mean).toFixed(2)}x`,
  ];
  Deno.stdout.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
} finally {
  await Promise.all(rows.map((row) => row.caller.close().catch(() => {})));
  await Promise.all(stops.map((stop) => stop()));
  await collector.shutdown();
  for (const dir of [root, ...configuredDirs]) await Deno.remove(dir, { recursive: true });
}
