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
 * several are). A call's spans are all made when it ends, which the
 * dispatcher tells after the reply went out: the call's own path only notes
 * that it started.
 *
 * @module
 */

import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
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

/** What is known of a call in flight: its spans are made when it ends, off the call's path. */
interface Held {
  /** When it began to wait for a human (milliseconds since the epoch), and whether it was let run. */
  wait?: { from: number; approved: boolean };
  /** The processes it ran, each with when it ended. */
  processes?: Array<{ record: SubprocessRecord; end: number }>;
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

  /** A call starts: it is noted (its span is made when it ends, from its record and outcome). */
  before(call: CallRecord): void {
    const held: Held = {};
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
    const held = running[0]!;
    (held.processes ??= []).push({ record, end: performance.timeOrigin + performance.now() });
  }

  /** A call begins or ends its wait for a human's approval: a child span covers it. */
  waiting(call: CallRecord, waiting: boolean): void {
    const held = this.#calls.get(call);
    if (!held) return;
    if (waiting) held.wait = { from: performance.timeOrigin + performance.now(), approved: false };
    else if (held.wait) held.wait.approved = true;
  }

  /** A call ended: its span, from its start to its own end, with its outcome and its parts. */
  after(call: CallRecord, outcome: CallOutcome): void {
    const held = this.#calls.get(call);
    if (!held) return;
    this.#calls.delete(call);
    this.#finished(call.tool, held);
    const ranFrom = call.started.getTime() + (outcome.waitedMs ?? 0);
    const span = this.#tracer.startSpan(
      `tools/call ${call.tool}`,
      { kind: SpanKind.SERVER, startTime: call.started, attributes: callAttributes(call, outcome) },
      parentContext(call.trace),
    );
    if (outcome.result.isError) span.setStatus({ code: SpanStatusCode.ERROR });
    const { wait, processes } = held;
    // The call's own time is counted from after the observers heard of its start: its parts,
    // timed as they happened, may end a little later, and the call's span covers them.
    let end = ranFrom + outcome.durationMs;
    if (wait || processes || outcome.phases || (outcome.queuedMs ?? 0) >= WAIT_SPAN_MS) {
      const inCall = trace.setSpan(ROOT_CONTEXT, span);
      if (wait) this.#waitSpan(call, outcome, wait, inCall);
      for (const process of processes ?? []) {
        this.#processSpan(process.record, process.end, inCall);
        end = Math.max(end, process.end);
      }
      this.#parts(ranFrom, outcome, inCall);
      for (const phase of outcome.phases ?? []) end = Math.max(end, phase.end);
    }
    span.end(end);
  }

  /** The call's spans in flight by tool lose this one (a tool's list stays: tools are few). */
  #finished(tool: string, held: Held): void {
    const running = this.#running.get(tool);
    const at = running?.indexOf(held) ?? -1;
    if (at !== -1) running!.splice(at, 1);
  }

  #waitSpan(
    call: CallRecord,
    outcome: CallOutcome,
    wait: NonNullable<Held["wait"]>,
    inCall: Context,
  ): void {
    const decision = outcome.approval?.decision ?? (wait.approved ? "approved" : "none");
    const attributes = { "gen_ai.tool.name": call.tool, "toolhost.approval.decision": decision };
    this.#tracer.startSpan("toolhost.approval.wait", { startTime: wait.from, attributes }, inCall)
      .end(wait.from + (outcome.waitedMs ?? 0));
  }

  #processSpan(record: SubprocessRecord, end: number, inCall: Context): void {
    const attributes: Attributes = {
      "process.executable.name": record.argv[0]?.split("/").pop() ?? "",
      "toolhost.sandbox.confinement": record.confinement,
      "toolhost.process.timed_out": record.timedOut,
    };
    if (record.exitCode !== null) attributes["process.exit.code"] = record.exitCode;
    if (record.signal !== null) attributes["toolhost.process.signal"] = record.signal;
    const startTime = end - record.durationMs;
    const span = this.#tracer.startSpan("toolhost.process", { startTime, attributes }, inCall);
    if (record.exitCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
  }

  /**
   * What the call's provider timed: its wait for a worker (a child span when it waited
   * {@linkcode WAIT_SPAN_MS} or more: most calls find a worker free) and its phases.
   */
  #parts(ranFrom: number, outcome: CallOutcome, inCall: Context): void {
    const { queuedMs, phases } = outcome;
    if (queuedMs !== undefined && queuedMs >= WAIT_SPAN_MS) {
      this.#tracer.startSpan("toolhost.worker.wait", { startTime: ranFrom }, inCall)
        .end(ranFrom + queuedMs);
    }
    for (const { name, start, end, attributes } of phases ?? []) {
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

/** A call's span's attributes, all at once (the SDK checks each attribute set on its own). */
function callAttributes(call: CallRecord, outcome: CallOutcome): Attributes {
  const attributes: Attributes = {
    "mcp.method.name": "tools/call",
    "mcp.session.id": call.session,
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.tool,
    "toolhost.client.name": call.client,
    "toolhost.arguments.chars": jsonChars(call.args),
    "toolhost.result.chars": resultChars(outcome.result),
  };
  if (outcome.waitedMs !== undefined) attributes["toolhost.waited_ms"] = outcome.waitedMs;
  if (outcome.queuedMs !== undefined) attributes["toolhost.worker.queued_ms"] = outcome.queuedMs;
  if (outcome.result.isError) attributes["error.type"] = errorType(outcome.result);
  return attributes;
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
