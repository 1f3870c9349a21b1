/**
 * The spans of calls and requests as modules, exported over OTLP/HTTP to a
 * receiver on loopback: a call's wait for a worker and the parts its
 * provider timed as its child spans, a process as the child of the one call
 * of its tool in flight, and the spans of MCP requests other than
 * `tools/call` paired from the messages in and out.
 *
 * @module
 */

import { resourceFromAttributes } from "@opentelemetry/resources";
import { assert, assertEquals } from "../../_assert.ts";
import { CallTracing, RequestTracing } from "../../../host/telemetry/mod.ts";
import { type CallOutcome, callRecord } from "../../../tools/calls.ts";
import type { SubprocessRecord } from "../../../tools/sandbox.ts";
import { attribute, type OtlpSpan, receiver, spansIn, timesOf } from "./_otlp.ts";

const RESOURCE = resourceFromAttributes({ "service.name": "toolhost-test" });

/** Spans made with a fresh CallTracing, sent when it closes. */
async function traced(make: (tracing: CallTracing) => void): Promise<OtlpSpan[]> {
  const collector = receiver();
  try {
    const tracing = new CallTracing(`${collector.url}/v1/traces`, RESOURCE, 10);
    make(tracing);
    await tracing.close();
    return spansIn(collector.bodies.get("/v1/traces") ?? []);
  } finally {
    await collector.close();
  }
}

/** Times are kept in nanoseconds from fractional milliseconds: equal within a millisecond. */
function assertNear(actual: number, expected: number, within: number): void {
  assert(Math.abs(actual - expected) <= within, `${actual} is not within ${within} of ${expected}`);
}

const OK: CallOutcome["result"] = { content: [{ type: "text", text: "ok" }] };

function named(spans: OtlpSpan[], name: string): OtlpSpan {
  const found = spans.find((span) => span.name === name);
  assert(found, `no span "${name}" in ${spans.map((span) => span.name).join(", ")}`);
  return found;
}

function processRecord(tool: string, argv: string[]): SubprocessRecord {
  return {
    tool,
    argv,
    cwd: "/tmp",
    confinement: "bwrap",
    exitCode: 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    durationMs: 40,
    stdoutBytes: 0,
    stderrBytes: 0,
    stdoutHead: "",
    stderrHead: "",
  };
}

Deno.test("CallTracing: a call's wait for a worker and its provider's phases are its child spans", async () => {
  const started = new Date(Date.now() - 1000);
  const phaseStart = started.getTime() + 300;
  const spans = await traced((tracing) => {
    const call = callRecord("read_file", {}, { session: "s", client: "c/1" }, started);
    tracing.before(call);
    tracing.after(call, {
      result: OK,
      paths: [],
      durationMs: 500,
      waitedMs: 100,
      queuedMs: 25,
      phases: [{
        name: "toolhost.upstream.call",
        start: phaseStart,
        end: phaseStart + 50,
        attributes: { "toolhost.upstream.server": "docs" },
      }],
    });
  });
  const call = named(spans, "tools/call read_file");
  const wait = named(spans, "toolhost.worker.wait");
  const phase = named(spans, "toolhost.upstream.call");
  assertEquals([wait.parentSpanId, phase.parentSpanId], [call.spanId, call.spanId]);
  // The wait starts when the call runs: after its 100 ms for a human.
  assertNear(timesOf(wait).start, started.getTime() + 100, 1);
  assertNear(timesOf(wait).end - timesOf(wait).start, 25, 1);
  assertNear(timesOf(phase).start, phaseStart, 1);
  assertNear(timesOf(phase).end, phaseStart + 50, 1);
  assertEquals(attribute(phase, "toolhost.upstream.server"), "docs");
  assertEquals(attribute(call, "toolhost.worker.queued_ms"), 25);
});

Deno.test("CallTracing: a call that found a worker free has its wait as an attribute, no span", async () => {
  const spans = await traced((tracing) => {
    const call = callRecord("read_file", {}, { session: "s", client: "c/1" }, new Date());
    tracing.before(call);
    tracing.after(call, { result: OK, paths: [], durationMs: 0.4, queuedMs: 0.25 });
  });
  assertEquals(spans.map((span) => span.name), ["tools/call read_file"]);
  assertEquals(attribute(spans[0]!, "toolhost.worker.queued_ms"), 0.25);
});

Deno.test("CallTracing: a call's wait for a human is a child span with the decision", async () => {
  const started = new Date(Date.now() - 5000);
  const approval = { id: "a1", args_hash: "h" } as const;
  const spans = await traced((tracing) => {
    const approved = callRecord("run_shell", {}, { session: "s", client: "c/1" }, started);
    tracing.before(approved);
    tracing.waiting(approved, true);
    tracing.waiting(approved, false);
    tracing.after(approved, {
      result: OK,
      paths: [],
      durationMs: 10,
      waitedMs: 2000,
      approval: { ...approval, decision: "approved" },
    });
    const denied = callRecord("edit_file", {}, { session: "s", client: "c/1" }, started);
    tracing.before(denied);
    tracing.waiting(denied, true);
    tracing.after(denied, {
      result: { content: [{ type: "text", text: "denied: a human said no" }], isError: true },
      paths: [],
      durationMs: 0,
      waitedMs: 1000,
      approval: { ...approval, decision: "denied" },
    });
  });
  const waits = spans.filter((span) => span.name === "toolhost.approval.wait");
  const byTool = (tool: string) =>
    waits.find((span) => attribute(span, "gen_ai.tool.name") === tool)!;
  assertEquals(byTool("run_shell").parentSpanId, named(spans, "tools/call run_shell").spanId);
  assertEquals(attribute(byTool("run_shell"), "toolhost.approval.decision"), "approved");
  assertEquals(attribute(byTool("edit_file"), "toolhost.approval.decision"), "denied");
  assertEquals(byTool("edit_file").parentSpanId, named(spans, "tools/call edit_file").spanId);
  // The call's own time starts once the human answered: its span ends 10 ms after the wait.
  const call = timesOf(named(spans, "tools/call run_shell"));
  assertNear(call.start, started.getTime(), 1);
  assertNear(call.end, started.getTime() + 2000 + 10, 1);
  const wait = timesOf(byTool("run_shell"));
  assertNear(wait.end - wait.start, 2000, 1);
  assertEquals(named(spans, "tools/call edit_file").status.code, 2);
  assertEquals(attribute(named(spans, "tools/call edit_file"), "error.type"), "denied");
});

Deno.test("CallTracing: a process is a child span of the one call of its tool in flight, never of two", async () => {
  const spans = await traced((tracing) => {
    const at = (tool: string) => callRecord(tool, {}, { session: "s", client: "c/1" }, new Date());
    const shell = at("run_shell");
    const [gitA, gitB] = [at("git_log"), at("git_log")];
    for (const call of [shell, gitA, gitB]) tracing.before(call);
    tracing.process(processRecord("run_shell", ["/usr/bin/bash", "-c", "secret-argument"]));
    tracing.process(processRecord("git_log", ["git", "log"]));
    for (const call of [shell, gitA, gitB]) {
      tracing.after(call, { result: OK, paths: [], durationMs: 60 });
    }
  });
  const processes = spans.filter((span) => span.name === "toolhost.process");
  assertEquals(processes.length, 1, "git_log's process has two calls to choose from: none");
  const [process] = processes;
  assertEquals(process!.parentSpanId, named(spans, "tools/call run_shell").spanId);
  assertEquals(attribute(process!, "process.executable.name"), "bash");
  assertEquals(attribute(process!, "process.exit.code"), 0);
  assertEquals(attribute(process!, "toolhost.sandbox.confinement"), "bwrap");
  assertNear(timesOf(process!).end - timesOf(process!).start, 40, 1);
  assert(!JSON.stringify(spans).includes("secret-argument"));
});

Deno.test("RequestTracing: a span per request answered, as MCP's semantic conventions say", async (t) => {
  const trace = "0af7651916cd43dd8448eb211c80319c";
  const spans = await traced((tracing) => {
    const requests = new RequestTracing(tracing.tracer, "stdio-session");
    const exchange = (session: string, request: object, response: object) => {
      requests.message("in", { jsonrpc: "2.0", ...request }, session);
      requests.message("out", { jsonrpc: "2.0", ...response }, session);
    };
    exchange("web-1", {
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", clientInfo: { name: "inspector", version: "2" } },
    }, { id: 1, result: { protocolVersion: "2025-03-26" } });
    exchange("web-1", {
      id: 2,
      method: "resources/read",
      params: { uri: "https://user:pw@example.org/a/b?token=query-secret#frag" },
    }, { id: 2, error: { code: -32002, message: "Resource not found" } });
    exchange("web-1", {
      id: 3,
      method: "prompts/get",
      params: { name: "review", arguments: { code: "prompt-secret" } },
    }, { id: 3, error: { code: -32603, message: "Internal error" } });
    exchange("stdio-session", {
      id: "x",
      method: "tools/list",
      params: { _meta: { traceparent: `00-${trace}-b7ad6b7169203331-01` } },
    }, { id: "x", result: { tools: [] } });
    exchange("stdio-session", { id: 4, method: "tools/call", params: { name: "a" } }, {
      id: 4,
      result: { content: [] },
    });
    exchange("web-1", { id: 7, method: "x method-secret" }, {
      id: 7,
      error: { code: -32601, message: "Method not found" },
    });
    // A response in another session, or to no request, makes no span.
    requests.message("in", { jsonrpc: "2.0", id: 5, method: "ping" }, "web-1");
    requests.message("out", { jsonrpc: "2.0", id: 5, result: {} }, "web-2");
    requests.message("out", { jsonrpc: "2.0", id: 6, result: {} }, "web-1");
  });
  await t.step("one span per answered request but tools/call (the call's observer has it)", () => {
    assertEquals(spans.map((span) => span.name).sort(), [
      "_OTHER",
      "initialize",
      "prompts/get review",
      "resources/read",
      "tools/list",
    ]);
  });
  await t.step("the session's client and the protocol version the server chose", () => {
    const read = named(spans, "resources/read");
    assertEquals(attribute(read, "mcp.session.id"), "web-1");
    assertEquals(attribute(read, "jsonrpc.request.id"), "2");
    assertEquals(attribute(read, "toolhost.client.name"), "inspector/2");
    assertEquals(attribute(read, "mcp.protocol.version"), "2025-03-26");
    assertEquals(attribute(read, "network.transport"), "tcp");
    assertEquals(attribute(named(spans, "tools/list"), "network.transport"), "pipe");
  });
  await t.step("a resource's URI without its user, query or fragment", () => {
    const read = named(spans, "resources/read");
    assertEquals(attribute(read, "mcp.resource.uri"), "https://example.org/a/b");
    const sent = JSON.stringify(spans);
    for (const secret of ["pw@", "query-secret", "frag", "prompt-secret", "method-secret"]) {
      assert(!sent.includes(secret), secret);
    }
  });
  await t.step("an error code the server should not count as its own sets no error.type", () => {
    const read = named(spans, "resources/read");
    assertEquals(attribute(read, "rpc.response.status_code"), "-32002");
    assertEquals(attribute(read, "error.type"), undefined);
    assertEquals(read.status.code ?? 0, 0);
    const prompt = named(spans, "prompts/get review");
    assertEquals(attribute(prompt, "gen_ai.prompt.name"), "review");
    assertEquals(attribute(prompt, "error.type"), "-32603");
    assertEquals(prompt.status.code, 2);
  });
  await t.step("a request's traceparent continues the client's trace", () => {
    const list = named(spans, "tools/list");
    assertEquals([list.traceId, list.parentSpanId], [trace, "b7ad6b7169203331"]);
  });
});
