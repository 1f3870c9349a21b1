/**
 * OpenTelemetry export, in the launch users run: a config file outside the
 * root names a collector (an OTLP/HTTP receiver this test serves on
 * loopback), the launch grants the host exactly that address, and the calls
 * a client makes arrive as spans — named and described as the semantic
 * conventions for MCP and GenAI tool execution say, the one with a
 * `traceparent` in the client's trace — and as metrics; no argument value is
 * in anything sent.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio } from "../../_mcp.ts";

/** A value no export may hold: it is only ever an argument. */
const ARGUMENT_VALUE = "argument-value-never-exported";

/** The client's trace: its id and the span the call is made under. */
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN = "b7ad6b7169203331";

/** How long the host may take to send (it batches spans every 100 ms here, metrics every 500). */
const SENT_WITHIN_MS = 60_000;

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string };
}

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  status: { code: number };
}

/** An OTLP/HTTP receiver on loopback: what was posted, by path. */
function receiver(): { url: string; bodies: Map<string, string[]>; close(): Promise<void> } {
  const bodies = new Map<string, string[]>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      bodies.set(path, [...(bodies.get(path) ?? []), await request.text()]);
      return Response.json({});
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    bodies,
    close: () => server.shutdown(),
  };
}

function spansIn(bodies: readonly string[]): OtlpSpan[] {
  return bodies.flatMap((body) =>
    (JSON.parse(body) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    }).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
  );
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((each) => each.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}

/** Wait for a state of the receiver, polling it (the host sends on its own schedule). */
async function until(what: string, holds: () => boolean): Promise<void> {
  const deadline = Date.now() + SENT_WITHIN_MS;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`Nothing sent: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("OTLP: spans and metrics of the calls reach the collector, in the client's trace, without arguments", async () => {
  const collector = receiver();
  await using root = await tempDir();
  await using outside = await tempDir("toolhost-otlp-config-");
  try {
    await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
    const config = `${outside.path}/toolhost.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({ telemetry: { otlp: { endpoint: collector.url } } }),
    );
    await using session = await connectStdio([root.path], {
      config,
      env: { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "500" },
    });
    assertStringIncludes(
      session.stderr(),
      `spans and metrics exported over OTLP/HTTP to ${collector.url} (set by the config)`,
    );
    const traced = await session.client.callTool({
      name: "read_file",
      arguments: { path: "a.txt" },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    assert(!traced.isError, JSON.stringify(traced));
    const failed = await session.call("read_file", { path: `${ARGUMENT_VALUE}.txt` });
    assert(failed.isError);

    const spans = () => spansIn(collector.bodies.get("/v1/traces") ?? []);
    await until("the spans of both calls", () => spans().length >= 2);
    const [inTrace, ...others] = [
      ...spans().filter((span) => span.traceId === TRACE_ID),
      ...spans().filter((span) => span.traceId !== TRACE_ID),
    ];
    assertEquals(inTrace!.parentSpanId, PARENT_SPAN, "the call continues the client's trace");
    assertEquals(inTrace!.name, "tools/call read_file");
    assertEquals(inTrace!.kind, 2, "a server span");
    assertEquals(attribute(inTrace!, "mcp.method.name"), "tools/call");
    assertEquals(attribute(inTrace!, "gen_ai.operation.name"), "execute_tool");
    assertEquals(attribute(inTrace!, "gen_ai.tool.name"), "read_file");
    assertEquals(attribute(inTrace!, "toolhost.client.name"), "toolhost-test/1.0.0");
    assert(typeof attribute(inTrace!, "mcp.session.id") === "string");
    assertEquals(attribute(inTrace!, "toolhost.result.chars"), "alpha\n".length);
    assertEquals(attribute(inTrace!, "toolhost.arguments.chars"), '{"path":"a.txt"}'.length);
    const error = others.find((span) => attribute(span, "error.type") !== undefined);
    assertEquals(error && attribute(error, "error.type"), "not_found");
    assertEquals(error?.status.code, 2, "an error status");

    const metrics = () => (collector.bodies.get("/v1/metrics") ?? []).join("\n");
    await until("the calls' metrics", () => metrics().includes('"toolhost.tool.calls"'));
    assertStringIncludes(metrics(), '"toolhost.tool.call.duration"');
    for (const [path, bodies] of collector.bodies) {
      assert(!bodies.some((body) => body.includes(ARGUMENT_VALUE)), `an argument in ${path}`);
    }
  } finally {
    await collector.close();
  }
});
