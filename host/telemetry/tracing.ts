/**
 * A span per tool call, exported over OTLP/HTTP with OpenTelemetry's SDK,
 * named and described as OpenTelemetry's semantic conventions for MCP and
 * for GenAI tool execution say (`tools/call read_file`, `mcp.method.name`,
 * `mcp.session.id`, `gen_ai.operation.name`, `gen_ai.tool.name`,
 * `error.type`), with the client's name, and a child span for the time the
 * call waited for a human's approval. A request whose `_meta` carries a W3C
 * `traceparent` continues that trace. Arguments and results are never
 * exported: only their sizes.
 *
 * @module
 */

import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import type { Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { CallObserver, CallOutcome, CallRecord, CallResult } from "../../tools/calls.ts";

/** A call's span, and its approval wait's while it waits. */
interface Held {
  readonly span: Span;
  wait?: Span;
}

/** Spans of tool calls, sent to an OTLP/HTTP collector. */
export class CallTracing implements CallObserver {
  #provider: TracerProvider;
  #tracer;
  #calls = new WeakMap<CallRecord, Held>();
  #propagator = new W3CTraceContextPropagator();
  /** Spans are kept by call: a call need not wait for the others' telling. */
  readonly unordered = true;

  /**
   * @param url The collector's OTLP/HTTP traces URL (`…/v1/traces`).
   * @param resource The host's resource (`service.name`, `service.version`).
   * @param delayMs How long spans wait to be sent in a batch.
   */
  constructor(url: string, resource: Resource, delayMs: number) {
    const exporter = new OTLPTraceExporter({ url });
    this.#provider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: delayMs })],
    });
    this.#tracer = this.#provider.getTracer("toolhost");
  }

  /** A call starts: its span opens, in the client's trace when the request carried one. */
  before(call: CallRecord): void {
    const parent = call.trace
      ? this.#propagator.extract(ROOT_CONTEXT, call.trace, {
        get: (carrier, key) => (carrier as Record<string, string | undefined>)[key],
        keys: (carrier) => Object.keys(carrier as object),
      })
      : ROOT_CONTEXT;
    const attributes: Attributes = {
      "mcp.method.name": "tools/call",
      "mcp.session.id": call.session,
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.tool,
      "toolhost.client.name": call.client,
      "toolhost.arguments.chars": jsonChars(call.args),
    };
    const span = this.#tracer.startSpan(
      `tools/call ${call.tool}`,
      { kind: SpanKind.SERVER, startTime: call.started, attributes },
      parent,
    );
    this.#calls.set(call, { span });
  }

  /** A call begins or ends its wait for a human's approval: a child span covers it. */
  waiting(call: CallRecord, waiting: boolean): void {
    const held = this.#calls.get(call);
    if (!held) return;
    if (waiting) {
      const inCall = trace.setSpan(ROOT_CONTEXT, held.span);
      held.wait = this.#tracer.startSpan("toolhost.approval.wait", {
        attributes: { "gen_ai.tool.name": call.tool },
      }, inCall);
      return;
    }
    held.wait?.setAttribute("toolhost.approval.decision", "approved");
    held.wait?.end();
    delete held.wait;
  }

  /** A call ended: its span closes at the call's own end, with its outcome. */
  after(call: CallRecord, outcome: CallOutcome): void {
    const held = this.#calls.get(call);
    if (!held) return;
    this.#calls.delete(call);
    const waitedEnd = call.started.getTime() + (outcome.waitedMs ?? 0);
    if (held.wait) {
      held.wait.setAttribute("toolhost.approval.decision", outcome.approval?.decision ?? "none");
      held.wait.end(waitedEnd);
    }
    const { span } = held;
    span.setAttribute("toolhost.result.chars", resultChars(outcome.result));
    if (outcome.waitedMs !== undefined) span.setAttribute("toolhost.waited_ms", outcome.waitedMs);
    if (outcome.result.isError) {
      span.setAttribute("error.type", errorType(outcome.result));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(waitedEnd + outcome.durationMs);
  }

  /** Send what is buffered, and stop. */
  async close(): Promise<void> {
    await this.#provider.shutdown();
  }
}

/**
 * The error's kind: the code the result starts with (`not_found: …`), never its message.
 *
 * @param result An error result.
 * @returns The code, or `tool_error`.
 */
export function errorType(result: CallResult): string {
  const text = result.content.find((block) => block.type === "text")?.text ?? "";
  return /^([a-z][a-z_]{1,40}):/.exec(text)?.[1] ?? "tool_error";
}

/** The arguments' size as JSON, in characters (what a model counts; no byte encoding per call). */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The result's text, in characters. */
function resultChars(result: CallResult): number {
  let chars = 0;
  for (const block of result.content) chars += block.text?.length ?? 0;
  return chars;
}
