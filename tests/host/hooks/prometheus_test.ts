/**
 * The host's metrics as Prometheus reads them: `GET /metrics` on the Hook
 * API port of a host started the way a user starts it, read by the test
 * (names, labels, no argument value, the token required) and scraped by a
 * real Prometheus (Debian's `prometheus`) configured as docs/hooks.md shows —
 * its HTTP API then returns `toolhost_tool_calls_total` for the calls this
 * test made.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { canRun, missing, tempDir } from "../../_helpers.ts";
import { legacyClient } from "../transports/_http.ts";
import { hookFetch, type HooksHost, launchWithHooks } from "./_hooks.ts";

/** A value no metric may hold: it is only ever an argument. */
const ARGUMENT_VALUE = "argument-value-never-exported";

/** How long Prometheus may take to start and scrape (it scrapes every second). */
const SCRAPED_WITHIN_MS = 90_000;

Deno.test("metrics: the Hook API's /metrics, scraped by a real Prometheus", async (t) => {
  if (missing("prometheus (Debian's prometheus package)", canRun("prometheus"))) return;
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await using host = await launchWithHooks(root.path);
  const client = await legacyClient(host.http, "metrics-client");
  try {
    await makeCalls(client);
  } finally {
    await client.close();
  }

  await t.step("the exposition counts each call by tool, outcome and client", async () => {
    const response = await hookFetch(host, "/metrics");
    assertEquals(response.status, 200);
    assertMatch(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const client = 'client="metrics-client/1.0.0"';
    assertStringIncludes(
      text,
      `toolhost_tool_calls_total{tool="read_file",outcome="ok",${client}} 3\n`,
    );
    assertStringIncludes(
      text,
      `toolhost_tool_calls_total{tool="read_file",outcome="error",${client}} 1\n`,
    );
    assertStringIncludes(
      text,
      `toolhost_tool_call_duration_seconds_count{tool="read_file",outcome="ok",${client}} 3\n`,
    );
    assertStringIncludes(text, "# TYPE toolhost_tool_call_duration_seconds histogram\n");
    for (const gauge of ["tool_calls_in_flight", "approvals_waiting", "worker_restarts_total"]) {
      assertMatch(text, new RegExp(`^toolhost_${gauge} 0$`, "m"));
    }
    assert(!text.includes(ARGUMENT_VALUE), "an argument's value is in the metrics");
  });

  await t.step("without the Hook API's token: 401", async () => {
    const refused = await hookFetch(host, "/metrics", { token: null });
    assertEquals(refused.status, 401);
    await refused.body?.cancel();
  });

  await t.step("Prometheus scrapes it with the token and answers a query", async () => {
    const counts = await scrapedByPrometheus(host, root.path);
    assertEquals(counts, { error: "1", ok: "3" });
  });
});

/** Three reads that succeed and one that fails, its path a value that must not be exported. */
async function makeCalls(client: Client): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    assert(!read.isError, JSON.stringify(read));
  }
  const failed = await client.callTool({
    name: "read_file",
    arguments: { path: `${ARGUMENT_VALUE}.txt` },
  });
  assert(failed.isError, JSON.stringify(failed));
}

/**
 * Start Prometheus with docs/hooks.md's scrape config for this host, and wait until its query API
 * returns the read_file calls.
 *
 * @returns `toolhost_tool_calls_total{tool="read_file"}` by outcome, as Prometheus returns it.
 */
async function scrapedByPrometheus(
  host: HooksHost,
  root: string,
): Promise<Record<string, string>> {
  await using scratch = await tempDir("toolhost-prometheus-");
  const target = new URL(host.hooksUrl).host;
  const config = `${scratch.path}/prometheus.yml`;
  await Deno.writeTextFile(
    config,
    [
      "scrape_configs:",
      "  - job_name: toolhost",
      "    scrape_interval: 1s",
      "    authorization:",
      `      credentials_file: ${root}/.toolhost/hooks-token`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const listen = `127.0.0.1:${freePort()}`;
  const prometheus = new Deno.Command("prometheus", {
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${scratch.path}/data`,
      `--web.listen-address=${listen}`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log = drain(prometheus.stderr);
  try {
    const query = encodeURIComponent('toolhost_tool_calls_total{tool="read_file"}');
    const deadline = Date.now() + SCRAPED_WITHIN_MS;
    while (Date.now() < deadline) {
      const counts = await queried(`http://${listen}/api/v1/query?query=${query}`);
      if (counts && Object.keys(counts).length === 2) return counts;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`Prometheus returned no toolhost_tool_calls_total; its log:\n${log()}`);
  } finally {
    prometheus.kill("SIGTERM");
    await prometheus.status;
  }
}

/** The query's samples by outcome, or undefined while Prometheus is not up or has none. */
async function queried(url: string): Promise<Record<string, string> | undefined> {
  try {
    const response = await fetch(url);
    const body = await response.json() as {
      data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    const result = body.data?.result ?? [];
    return Object.fromEntries(result.map((each) => [each.metric.outcome!, each.value[1]]));
  } catch {
    return undefined; // not listening yet
  }
}

/** A loopback port that was free a moment ago. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Read a stream to its end in the background; the text so far, on demand. */
function drain(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  })().catch(() => {});
  return () => text;
}
