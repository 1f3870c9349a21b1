/**
 * OpenTelemetry export, in the launch users run: a config file outside the
 * root names a collector (an OTLP/HTTP receiver this test serves on
 * loopback), the launch grants the host exactly that address, and the calls
 * a client makes arrive as spans — named and described as the semantic
 * conventions for MCP and GenAI tool execution say, the one with a
 * `traceparent` in the client's trace — and as metrics; no argument value is
 * in anything sent. The other MCP requests (`initialize`, `tools/list`) have
 * spans of their own; a shell command's process, an upstream server's
 * answer and a fetch are child spans of their calls.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { canRun, missing, tempDir } from "../../_helpers.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connectStdio, launchHttp } from "../../_mcp.ts";
import { attribute, receiver, spansIn, timesOf } from "./_otlp.ts";
import { fixtureSite } from "../network/_web.ts";
import { clientWith, mint } from "../clients/_clients.ts";

/** A value no export may hold: it is only ever an argument. */
const ARGUMENT_VALUE = "argument-value-never-exported";

/** The client's trace: its id and the span the call is made under. */
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN = "b7ad6b7169203331";

/** How long the host may take to send (it batches spans every 100 ms here, metrics every 500). */
const SENT_WITHIN_MS = 60_000;

/** Wait for a state of the receiver, polling it (the host sends on its own schedule). */
async function until(what: string, holds: () => boolean): Promise<void> {
  const deadline = Date.now() + SENT_WITHIN_MS;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`Nothing sent: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ECHO = new URL("../../../fixtures/upstream/echo_server.ts", import.meta.url).pathname;

/** The client's trace for a `tools/list`. */
const LIST_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const LIST_PARENT_SPAN = "00f067aa0ba902b7";

const noBwrap = missing("bwrap", canRun("bwrap"));

/** The spans the collector holds, and the first with a name. */
function spansOf(collector: { bodies: Map<string, string[]> }) {
  const spans = () => spansIn(collector.bodies.get("/v1/traces") ?? []);
  const named = (name: string) => spans().find((span) => span.name === name);
  return { spans, named };
}

// One host over stdio for these steps, launched as users launch it and exporting to the collector
// (spans every 100 ms, metrics every 500), with the upstream server and the site the steps call.
// Each step reads the spans of its own calls (by name; no two steps call the same tool); the step
// that finds no call span runs first, before any call.
Deno.test("OTLP: on a host over stdio exporting to a collector", async (t) => {
  const collector = receiver();
  await using site = fixtureSite();
  await using root = await tempDir();
  await using outside = await tempDir("toolhost-otlp-config-");
  try {
    await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
    const config = `${outside.path}/toolhost.json`;
    const upstream = { mcpServers: { echo: { command: Deno.execPath(), args: ["run", ECHO] } } };
    const net = { allow: [`127.0.0.1:${site.port}`] };
    await Deno.writeTextFile(
      config,
      JSON.stringify({ upstream, net, telemetry: { otlp: { endpoint: collector.url } } }),
    );
    await using session = await connectStdio([root.path], {
      config,
      env: { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "500" },
    });
    const { spans, named } = spansOf(collector);

    await t.step(
      "OTLP: initialize and tools/list have spans of their own, tools/list in the client's trace",
      async () => {
        await session.client.listTools({
          _meta: { traceparent: `00-${LIST_TRACE_ID}-${LIST_PARENT_SPAN}-01` },
        });
        await session.client.ping();
        await until("the requests' spans", () => ["initialize", "tools/list", "ping"].every(named));
        const initialize = named("initialize")!;
        assertEquals(initialize.kind, 2, "a server span");
        assertEquals(attribute(initialize, "mcp.method.name"), "initialize");
        assertEquals(attribute(initialize, "jsonrpc.request.id"), "0", "the SDK client's first id");
        assertEquals(attribute(initialize, "network.transport"), "pipe");
        assertEquals(attribute(initialize, "toolhost.client.name"), "toolhost-test/1.0.0");
        assert(typeof attribute(initialize, "mcp.protocol.version") === "string");
        const list = named("tools/list")!;
        assertEquals(list.traceId, LIST_TRACE_ID, "tools/list continues the client's trace");
        assertEquals(list.parentSpanId, LIST_PARENT_SPAN);
        assertEquals(attribute(list, "mcp.session.id"), attribute(initialize, "mcp.session.id"));
        assertEquals(
          attribute(list, "mcp.protocol.version"),
          attribute(initialize, "mcp.protocol.version"),
        );
        assertEquals(attribute(list, "error.type"), undefined);
        assert(
          !spans().some((span) => span.name.startsWith("tools/call")),
          "no call, no call span",
        );
      },
    );

    await t.step(
      "OTLP: spans and metrics of the calls reach the collector, in the client's trace, without arguments",
      async () => {
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

        // The calls' own spans: initialize and the other requests have spans of their own.
        const calls = () => spans().filter((span) => span.name === "tools/call read_file");
        await until("the spans of both calls", () => calls().length >= 2);
        const [inTrace, ...others] = [
          ...calls().filter((span) => span.traceId === TRACE_ID),
          ...calls().filter((span) => span.traceId !== TRACE_ID),
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
        const queued = attribute(inTrace!, "toolhost.worker.queued_ms");
        assert(typeof queued === "number" && queued >= 0, `the wait for a tool worker: ${queued}`);
        const error = others.find((span) => attribute(span, "error.type") !== undefined);
        assertEquals(error && attribute(error, "error.type"), "not_found");
        assertEquals(error?.status.code, 2, "an error status");

        const metrics = () => (collector.bodies.get("/v1/metrics") ?? []).join("\n");
        await until("the calls' metrics", () => metrics().includes('"toolhost.tool.calls"'));
        assertStringIncludes(metrics(), '"toolhost.tool.call.duration"');
        for (const [path, bodies] of collector.bodies) {
          assert(!bodies.some((body) => body.includes(ARGUMENT_VALUE)), `an argument in ${path}`);
        }
      },
    );

    await t.step({
      name:
        `OTLP: a shell command's process is a child span of its call, with its program's name only${
          noBwrap ? " (skipped: bwrap not installed)" : ""
        }`,
      ignore: noBwrap,
      fn: async () => {
        const ran = await session.call("run_shell", { command: `exit 3 # ${ARGUMENT_VALUE}` });
        assertStringIncludes(JSON.stringify(ran.content), "EXIT CODE: 3");
        await until(
          "the call's and its process's spans",
          () =>
            named("tools/call run_shell") !== undefined && named("toolhost.process") !== undefined,
        );
        const call = named("tools/call run_shell")!;
        const process = named("toolhost.process")!;
        assertEquals(process.traceId, call.traceId);
        assertEquals(process.parentSpanId, call.spanId, "the process is the call's child");
        assertEquals(attribute(process, "process.exit.code"), 3);
        assertEquals(attribute(process, "toolhost.sandbox.confinement"), "bwrap");
        const program = attribute(process, "process.executable.name");
        assert(
          typeof program === "string" && /^[a-z]+$/.test(program),
          `a program's name: ${program}`,
        );
        assertEquals(process.status.code, 2, "a process that failed is an error");
        const sent = (collector.bodies.get("/v1/traces") ?? []).join("\n");
        assert(!sent.includes(ARGUMENT_VALUE), "the command is in no span");
        assert(!sent.includes("exit 3"), "nor any of its arguments");
      },
    });

    await t.step(
      "OTLP: an upstream server's answer is a child span of the call, with its server and tool",
      async () => {
        const echoed = await session.call("echo__echo", { text: ARGUMENT_VALUE });
        assert(!echoed.isError, `${JSON.stringify(echoed)}\n${session.stderr()}`);
        await until(
          "the call's and its upstream answer's spans",
          () =>
            named("tools/call echo__echo") !== undefined &&
            named("toolhost.upstream.call") !== undefined,
        );
        const call = named("tools/call echo__echo")!;
        const upstreamCall = named("toolhost.upstream.call")!;
        assertEquals(
          upstreamCall.parentSpanId,
          call.spanId,
          "the upstream answer is the call's child",
        );
        assertEquals(attribute(upstreamCall, "toolhost.upstream.server"), "echo");
        assertEquals(attribute(upstreamCall, "gen_ai.tool.name"), "echo");
        assertEquals(attribute(upstreamCall, "error.type"), undefined);
        const [span, inner] = [call, upstreamCall].map(timesOf);
        // The call's start is a Date (whole milliseconds), its parts' times are fractional.
        assert(
          span!.start <= inner!.start + 1 && inner!.end <= span!.end,
          `within the call: ${JSON.stringify({ span, inner })}`,
        );
        const sent = (collector.bodies.get("/v1/traces") ?? []).join("\n");
        assert(!sent.includes(ARGUMENT_VALUE), "the argument is in no span");
      },
    );

    await t.step(
      "OTLP: a fetch is a child span of its call, with the host and status and nothing of the URL's path",
      async () => {
        const url = site.url(`/article.html?q=${ARGUMENT_VALUE}`);
        const fetched = await session.call("fetch_url", { url });
        assert(!fetched.isError, `${JSON.stringify(fetched)}\n${session.stderr()}`);
        await until(
          "the call's and its fetch's spans",
          () =>
            named("tools/call fetch_url") !== undefined &&
            named("toolhost.net.fetch") !== undefined,
        );
        const call = named("tools/call fetch_url")!;
        const fetch = named("toolhost.net.fetch")!;
        assertEquals(fetch.parentSpanId, call.spanId, "the fetch is the call's child");
        assertEquals(attribute(fetch, "server.address"), "127.0.0.1");
        assertEquals(attribute(fetch, "http.response.status_code"), 200);
        const sent = (collector.bodies.get("/v1/traces") ?? []).join("\n");
        assert(!sent.includes(ARGUMENT_VALUE), "the URL's query is in no span");
        assert(!sent.includes("article.html"), "the URL's path is in no span");
      },
    );
  } finally {
    await collector.close();
  }
});

Deno.test("OTLP: over HTTP, a session's requests have spans with its own session id, over TCP", async () => {
  const collector = receiver();
  await using root = await tempDir();
  await using outside = await tempDir("toolhost-otlp-config-");
  const config = `${outside.path}/toolhost.json`;
  const telemetry = { otlp: { endpoint: collector.url } };
  await Deno.writeTextFile(config, JSON.stringify({ telemetry }));
  try {
    await using host = await launchHttp([root.path], {
      config,
      env: { OTEL_BSP_SCHEDULE_DELAY: "100", XDG_CONFIG_HOME: outside.path },
    });
    const client = new Client({ name: "toolhost-http-test", version: "2.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: host.headers },
      }),
    );
    try {
      await client.listTools();
    } finally {
      await client.close();
    }
    const spans = () => spansIn(collector.bodies.get("/v1/traces") ?? []);
    const named = (name: string) => spans().find((span) => span.name === name);
    await until("the session's requests' spans", () => ["initialize", "tools/list"].every(named));
    const [initialize, list] = [named("initialize")!, named("tools/list")!];
    assertEquals(attribute(initialize, "network.transport"), "tcp");
    assertEquals(attribute(list, "network.transport"), "tcp");
    const session = attribute(list, "mcp.session.id");
    assert(typeof session === "string" && session.length > 0, "a session id");
    assertEquals(attribute(initialize, "mcp.session.id"), session, "one session, one id");
    assertEquals(attribute(list, "toolhost.client.name"), "toolhost-http-test/2.0.0");
    assert(!JSON.stringify(spans()).includes(host.token ?? "no token"), "no token in a span");
    // A client whose token names it: its name, not what its initialize says, in every span.
    const bearer = await mint(outside.path, host, [root.path], "ci-bot");
    const bot = await clientWith(host, bearer, "some-app");
    try {
      await bot.listTools();
      await bot.callTool({ name: "get_file_info", arguments: { path: "." } });
    } finally {
      await bot.close();
    }
    const ofBot = () =>
      spans().filter((span) => attribute(span, "toolhost.client.name") === "ci-bot");
    await until(
      "the named client's spans",
      () =>
        ["tools/list", "tools/call get_file_info"].every((name) =>
          ofBot().some((span) => span.name === name)
        ),
    );
    assert(!JSON.stringify(spans()).includes(bearer), "no client token in a span");
  } finally {
    await collector.close();
  }
});
