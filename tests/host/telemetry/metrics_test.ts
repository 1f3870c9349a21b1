/**
 * The host's metrics as one module (`host/telemetry/metrics.ts`): calls fed
 * to it as the dispatcher feeds them, its Prometheus text read back and
 * parsed here — counts by label, the histogram's buckets against the
 * durations the test gave, the gauges, a refused call kept out of the
 * durations, and the bound on a label's values. Through a real host and a
 * real Prometheus: `tests/host/hooks/prometheus_test.ts`.
 *
 * @module
 */

import { assertEquals } from "../../_assert.ts";
import { DURATION_BUCKETS_S, HostMetrics, MAX_LABEL_VALUES } from "../../../host/telemetry/mod.ts";
import type { CallOutcome, CallRecord } from "../../../tools/calls.ts";
import type { HostStatus } from "../../../tools/observe/observation.ts";

/** A status with what the metrics read from it. */
function status(restarts: number, held: number): () => HostStatus {
  const efferent = { state: "on", sinks: [], not_sinks: [], held, held_dropped: 0 };
  return () => ({ workers: { restarts }, efferent_copy: efferent }) as unknown as HostStatus;
}

function call(tool: string, client = "client-a/1"): CallRecord {
  return { tool, args: { path: "secret-argument" }, session: "s", client, started: new Date() };
}

function outcome(durationMs: number, extra: Partial<CallOutcome> = {}): CallOutcome {
  return { result: { content: [] }, paths: [], durationMs, ...extra };
}

/** Each sample line as `name{labels}` → value (labels as written). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

Deno.test("metrics: calls by tool, outcome and client; durations in their buckets", async () => {
  const metrics = new HostMetrics(status(2, 5), "9.9.9");
  const durations = [3, 12, 12, 700, 45_000];
  for (const ms of durations) {
    const each = call("read_file");
    metrics.before(each);
    metrics.after(each, outcome(ms));
  }
  const failed = call("read_file");
  metrics.before(failed);
  metrics.after(failed, outcome(8, { result: { content: [], isError: true } }));
  const text = await metrics.prometheus();
  const got = samples(text);
  const labels = 'tool="read_file",outcome="ok",client="client-a/1"';
  assertEquals(got.get(`toolhost_tool_calls_total{${labels}}`), durations.length);
  assertEquals(
    got.get('toolhost_tool_calls_total{tool="read_file",outcome="error",client="client-a/1"}'),
    1,
  );
  assertEquals(got.get(`toolhost_tool_call_duration_seconds_count{${labels}}`), durations.length);
  const sum = got.get(`toolhost_tool_call_duration_seconds_sum{${labels}}`)!;
  assertEquals(Math.round(sum * 1000), durations.reduce((a, b) => a + b, 0));
  for (const bound of DURATION_BUCKETS_S) {
    const expected = durations.filter((ms) => ms / 1000 <= bound).length;
    const key = `toolhost_tool_call_duration_seconds_bucket{${labels},le="${bound}"}`;
    assertEquals(got.get(key), expected, `le=${bound}`);
  }
  assertEquals(got.get(`toolhost_tool_call_duration_seconds_bucket{${labels},le="+Inf"}`), 5);
  assertEquals(got.get("toolhost_worker_restarts_total"), 2);
  assertEquals(got.get("toolhost_efferent_copy_backlog"), 5);
  assertEquals(text.includes("secret-argument"), false);
  await metrics.close();
});

Deno.test("metrics: in flight and waiting for approval; a refused call has no duration", async () => {
  const metrics = new HostMetrics(status(0, 0), "9.9.9");
  const running = call("run_shell");
  const waiting = call("write_file");
  metrics.before(running);
  metrics.before(waiting);
  metrics.waiting(waiting, true);
  let got = samples(await metrics.prometheus());
  assertEquals(got.get("toolhost_tool_calls_in_flight"), 2);
  assertEquals(got.get("toolhost_approvals_waiting"), 1);
  const approval = { id: "a1", decision: "denied" as const, args_hash: "h" };
  metrics.after(waiting, outcome(0, { approval, waitedMs: 30_000 }));
  got = samples(await metrics.prometheus());
  assertEquals(got.get("toolhost_tool_calls_in_flight"), 1);
  assertEquals(got.get("toolhost_approvals_waiting"), 0);
  const refused = 'tool="write_file",outcome="refused",client="client-a/1"';
  assertEquals(got.get(`toolhost_tool_calls_total{${refused}}`), 1);
  assertEquals(got.has(`toolhost_tool_call_duration_seconds_count{${refused}}`), false);
  metrics.after(running, outcome(5));
  got = samples(await metrics.prometheus());
  assertEquals(got.get("toolhost_tool_calls_in_flight"), 0);
  await metrics.close();
});

Deno.test("metrics: past its bound of values, a label counts new names as other", async () => {
  const metrics = new HostMetrics(status(0, 0), "9.9.9");
  const extra = 7;
  for (let i = 0; i < MAX_LABEL_VALUES + extra; i++) {
    const each = call("read_file", `client-${i}`);
    metrics.before(each);
    metrics.after(each, outcome(1));
  }
  const got = samples(await metrics.prometheus());
  const clients = [...got.keys()].filter((key) => key.startsWith("toolhost_tool_calls_total{"));
  assertEquals(clients.length, MAX_LABEL_VALUES + 1);
  assertEquals(
    got.get('toolhost_tool_calls_total{tool="read_file",outcome="ok",client="other"}'),
    extra,
  );
  await metrics.close();
});
