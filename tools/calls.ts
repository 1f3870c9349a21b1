/**
 * What every observer of tool calls receives: the call as it started and
 * how it ended. The interaction log, efferent copy, call statistics, stale
 * reads (and later session logs and the dashboard) all take these same
 * values from the dispatcher; a {@linkcode Sink} is an observer the host
 * also flushes and closes.
 *
 * @module
 */

import type { ToolResult } from "./tool.ts";

/** One call, as observers see it. */
export interface CallRecord {
  /** The tool's name. */
  readonly tool: string;
  /** The raw arguments. */
  readonly args: unknown;
  /** The session. */
  readonly session: string;
  /** The client. */
  readonly client: string;
  /** When it started. */
  readonly started: Date;
  /** The client's W3C trace context, when its request carried one (`_meta.traceparent`). */
  readonly trace?: TraceContext;
}

/** A W3C trace context, as a request's `_meta` carries it. */
export interface TraceContext {
  /** `traceparent`: version, trace id, parent span id, flags. */
  readonly traceparent: string;
  /** `tracestate`: vendors' entries. */
  readonly tracestate?: string;
}

/**
 * A call as observers see it, with the client's trace context when its request's `_meta` carries
 * one (strings only; the exporter checks them).
 *
 * @param tool The tool's name.
 * @param args The raw arguments.
 * @param ctx The call's session, client and request `_meta`.
 * @param started When it started.
 * @returns The record.
 */
export function callRecord(
  tool: string,
  args: unknown,
  ctx: { session: string; client: string; meta?: Readonly<Record<string, unknown>> },
  started: Date,
): CallRecord {
  const record = { tool, args, session: ctx.session, client: ctx.client, started };
  const traceparent = ctx.meta?.traceparent;
  if (typeof traceparent !== "string") return record;
  const tracestate = ctx.meta?.tracestate;
  const trace = typeof tracestate === "string" ? { traceparent, tracestate } : { traceparent };
  return { ...record, trace };
}

/**
 * A result as observers read it: a {@linkcode ToolResult}, or a result of
 * the same shape from an upstream server.
 */
export interface CallResult {
  /** The content blocks (observers read the text ones). */
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  /** The result as data, when the tool has an output schema. */
  readonly structuredContent?: ToolResult["structuredContent"];
  /** True for an error. */
  readonly isError?: boolean | undefined;
}

/** How a call ended, for observers. */
export interface CallOutcome {
  /** The result the client got. */
  readonly result: CallResult;
  /** Paths the call touched. */
  readonly paths: readonly string[];
  /** The call's own time in milliseconds: its wall time less {@linkcode CallOutcome.waitedMs}. */
  readonly durationMs: number;
  /** Milliseconds it waited for a human (its approval), when it did: never part of `durationMs`. */
  readonly waitedMs?: number;
  /** The human's decision, when the call waited for one. */
  readonly approval?: ApprovalNote;
  /** Milliseconds it waited for a tool worker to take it (a worker tool's call; part of `durationMs`). */
  readonly queuedMs?: number;
  /** Parts of the call its provider timed (an upstream server's answer): telemetry's child spans. */
  readonly phases?: readonly CallPhase[];
}

/** A timed part of a call, as telemetry shows it: a name, a span of time, what describes it. */
export interface CallPhase {
  /** A low-cardinality name (`toolhost.upstream.call`). */
  readonly name: string;
  /** When it began, in milliseconds since the epoch. */
  readonly start: number;
  /** When it ended, likewise. */
  readonly end: number;
  /** What describes it: never an argument's value. */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** How a call's approval was decided (in the interaction log and the audit file). */
export interface ApprovalNote {
  /** The approval's id. */
  readonly id: string;
  /** `approved`, `denied`, `timeout`, `cancelled`, or `asked` (an input-required round went to the client). */
  readonly decision: "approved" | "denied" | "timeout" | "cancelled" | "asked";
  /** Through which channel: `hook_api`, `dashboard`, `elicitation`, or `session_grant` (an earlier approval for the session). */
  readonly via?: string;
  /** Who answered, as the answer said (the Hook API has one token: a name is what the human gave). */
  readonly by?: string;
  /** What the approval covers: this `call` or the tool for the `session`. */
  readonly scope?: "call" | "session";
  /** The SHA-256 of the tool and its arguments, as shown to the human. */
  readonly args_hash: string;
  /** The reason given with a denial. */
  readonly reason?: string;
}

/** Something that watches calls: it must not throw into, or delay, the call. */
export interface CallObserver {
  /** Before the call runs. */
  before?(call: CallRecord): void;
  /**
   * The call began to wait for a human, its approval (`true`), or was
   * approved and runs now (`false`; a refused call goes to `after`).
   * `after` says how long it waited.
   */
  waiting?(call: CallRecord, waiting: boolean): void;
  /** After it ran. */
  after?(call: CallRecord, outcome: CallOutcome): void;
  /**
   * Its `before` needs no earlier call's `after` first (what it keeps is by call): a call that
   * starts does not make the dispatcher tell the others of the calls that ended first.
   */
  readonly unordered?: boolean;
}

/**
 * Whether an observer must hear of the calls that ended before it hears of the next one's start.
 *
 * @param observer The observer.
 * @returns True when it watches calls start and keeps their order.
 */
export function waitsForEarlierCalls(observer: CallObserver): boolean {
  return observer.before !== undefined && observer.unordered !== true;
}

/**
 * Where calls are written or sent (the interaction log, efferent copy to
 * MCP peers): an observer that holds resources, which the host flushes
 * before it reads back and closes when it stops.
 */
export interface Sink extends CallObserver {
  /** Settles what was accepted so far (a reader sees it afterwards). */
  flush(): Promise<void>;
  /** Flushes and releases the sink; calls after this are dropped. */
  close(): Promise<void>;
}
