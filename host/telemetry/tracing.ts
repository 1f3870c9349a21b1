/**
 * A span per tool call, exported over OTLP/HTTP with OpenTelemetry's SDK,
 * named and described as OpenTelemetry's semantic conventions for MCP and
 * for GenAI tool execution say (`tools/call read_file`, `mcp.method.name`,
 * `mcp.session.id`, `gen_ai.operation.name`, `gen_ai.tool.name`,
 * `error.type`), with the client's name, and child spans for the time the
 * call waited for a human's approval, for a tool worker to take it, for each
 * process it ran (the sandbox's: its program's name, never its arguments)
 * and for each part its provider timed. A request whose `_meta` carries a
 * W3C `traceparent` continues that trace. Arguments and results are never
 * exported: only their sizes.
 *
 * A process is told by the session log with the tool that ran it, not the
 * call: its span goes to the one call of that tool in flight (none when
 * several are).
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
  type Tracer,
} from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import type { Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { CallObserver, CallOutcome, CallRecord, CallResult } from "../../tools/calls.ts";
import type { SubprocessRecord } from "../../tools/sandbox.ts";
import { parentContext } from "./_trace_context.ts";

/** The shortest wait for a worker that has a span of its own (shorter ones are an attribute). */
const WAIT_SPAN_MS = 1;

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
  /** The calls in flight by tool, for the processes they run. */
  #running = new Map<string, Held[]>();
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

  /** Where the host's other spans are made (its MCP requests'). */
  get tracer(): Tracer {
    return this.#tracer;
  }

  /** A call starts: its span opens, in the client's trace when the request carried one. */
  before(call: CallRecord): void {
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
      parentContext(call.trace),
    );
    const held = { span };
    this.#calls.set(call, held);
    const running = this.#running.get(call.tool);
    if (running) running.push(held);
    else this.#running.set(call.tool, [held]);
  }

  /**
   * A process ended: a child span of the one call of its tool in flight, from its start to now.
   *
   * @param record What it was (its program's name is kept, never its arguments) and did.
   */
  process(record: SubprocessRecord): void {
    const running = this.#running.get(record.tool);
    if (running?.length !== 1) return;
    const end = performance.timeOrigin + performance.now();
    const attributes: Attributes = {
      "process.executable.name": record.argv[0]?.split("/").pop() ?? "",
      "toolhost.sandbox.confinement": record.confinement,
      "toolhost.process.timed_out": record.timedOut,
    };
    if (record.exitCode !== null) attributes["process.exit.code"] = record.exitCode;
    if (record.signal !== null) attributes["toolhost.process.signal"] = record.signal;
    const span = this.#tracer.startSpan(
      "toolhost.process",
      { startTime: end - record.durationMs, attributes },
      trace.setSpan(ROOT_CONTEXT, running[0]!.span),
    );
    if (record.exitCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
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
    this.#finished(call.tool, held);
    const waitedEnd = call.started.getTime() + (outcome.waitedMs ?? 0);
    if (held.wait) {
      held.wait.setAttribute("toolhost.approval.decision", outcome.approval?.decision ?? "none");
      held.wait.end(waitedEnd);
    }
    const { span } = held;
    this.#parts(span, waitedEnd, outcome);
    span.setAttribute("toolhost.result.chars", resultChars(outcome.result));
    if (outcome.waitedMs !== undefined) span.setAttribute("toolhost.waited_ms", outcome.waitedMs);
    if (outcome.result.isError) {
      span.setAttribute("error.type", errorType(outcome.result));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(waitedEnd + outcome.durationMs);
  }

  /** The call's spans in flight by tool lose this one (a tool's list stays: tools are few). */
  #finished(tool: string, held: Held): void {
    const running = this.#running.get(tool);
    const at = running?.indexOf(held) ?? -1;
    if (at !== -1) running!.splice(at, 1);
  }

  /**
   * What the call's provider timed: its wait for a worker (an attribute; a child span too when it
   * waited {@linkcode WAIT_SPAN_MS} or more: most calls find a worker free) and its phases.
   */
  #parts(span: Span, ranFrom: number, outcome: CallOutcome): void {
    const { queuedMs, phases } = outcome;
    if (queuedMs === undefined && phases === undefined) return;
    if (queuedMs !== undefined) span.setAttribute("toolhost.worker.queued_ms", queuedMs);
    if (queuedMs !== undefined && queuedMs >= WAIT_SPAN_MS) {
      this.#tracer.startSpan(
        "toolhost.worker.wait",
        { startTime: ranFrom },
        trace.setSpan(ROOT_CONTEXT, span),
      )
        .end(ranFrom + queuedMs);
    }
    if (phases === undefined) return;
    const inCall = trace.setSpan(ROOT_CONTEXT, span);
    for (const phase of phases) {
      const { name, start, end, attributes } = phase;
      this.#tracer.startSpan(
        name,
        { startTime: start, ...(attributes ? { attributes } : {}) },
        inCall,
      )
        .end(end);
    }
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
