/**
 * What the Hook API sees of calls: `call_started`, `call_waiting` (for an
 * approval), `call_resumed` and `call_ended` events (arguments redacted and
 * cut), and each session's recent calls for
 * `GET /api/session`. Bounded: the last {@linkcode MAX_SESSIONS} sessions,
 * each with its last {@linkcode RECENT_CALLS} calls.
 *
 * @module
 */

import type { CallObserver, CallOutcome, CallRecord } from "../../tools/calls.ts";
import { eventValue, type HookEvents } from "../approvals/mod.ts";

/** Sessions kept for `/api/session`. */
export const MAX_SESSIONS = 100;

/** Calls kept per session. */
export const RECENT_CALLS = 20;

/** The most characters of a call's arguments an event carries. */
const MAX_ARGS_CHARS = 2000;

/** One call as `/api/session` shows it. */
export interface RecentCall {
  /** The call's id in the events. */
  id: number;
  /** The tool. */
  tool: string;
  /** When it started. */
  started: string;
  /** `running`, `waiting for approval`, `ok` or the error code. */
  outcome: string;
  /** Its own time, once ended (a wait for approval is not in it). */
  duration_ms?: number;
  /** How long it waited for approval, once ended, when it did. */
  waited_ms?: number;
}

/** A session as `/api/session` shows it. */
export interface SessionSummary {
  /** The session. */
  session: string;
  /** Its client. */
  client: string;
  /** Its first call. */
  first_call: string;
  /** Its last call. */
  last_call: string;
  /** Calls so far. */
  calls: number;
  /** The most recent calls, newest last. */
  recent: RecentCall[];
}

/** Turns calls into events and session summaries. */
export class CallWatch implements CallObserver {
  #events: HookEvents;
  #redact: (args: unknown) => unknown;
  #ids = new WeakMap<CallRecord, RecentCall>();
  #next = 0;
  #sessions = new Map<string, SessionSummary>();

  /**
   * @param events Where the events go.
   * @param redact Arguments with secrets redacted.
   */
  constructor(events: HookEvents, redact: (args: unknown) => unknown) {
    this.#events = events;
    this.#redact = redact;
  }

  /** The sessions, most recently active first. */
  sessions(): SessionSummary[] {
    return [...this.#sessions.values()].reverse().map((each) => ({
      ...each,
      recent: each.recent.map((call) => ({ ...call })),
    }));
  }

  /** @inheritdoc */
  before(call: CallRecord): void {
    const recent: RecentCall = {
      id: ++this.#next,
      tool: call.tool,
      started: call.started.toISOString(),
      outcome: "running",
    };
    this.#ids.set(call, recent);
    this.#remember(call, recent);
    this.#events.emit("call_started", {
      call: recent.id,
      tool: call.tool,
      session: call.session,
      client: call.client,
      args: eventValue(this.#redact(call.args), MAX_ARGS_CHARS),
    });
  }

  /** @inheritdoc */
  waiting(call: CallRecord, waiting: boolean): void {
    const recent = this.#ids.get(call);
    if (recent === undefined) return;
    recent.outcome = waiting ? "waiting for approval" : "running";
    this.#events.emit(waiting ? "call_waiting" : "call_resumed", {
      call: recent.id,
      tool: call.tool,
      session: call.session,
    });
  }

  /** @inheritdoc */
  after(call: CallRecord, outcome: CallOutcome): void {
    const recent = this.#ids.get(call);
    if (recent === undefined) return;
    recent.outcome = outcomeOf(outcome);
    recent.duration_ms = Math.round(outcome.durationMs * 1000) / 1000;
    if (outcome.waitedMs !== undefined) {
      recent.waited_ms = Math.round(outcome.waitedMs * 1000) / 1000;
    }
    this.#events.emit("call_ended", {
      call: recent.id,
      tool: call.tool,
      session: call.session,
      outcome: recent.outcome,
      duration_ms: recent.duration_ms,
      ...(recent.waited_ms === undefined ? {} : { waited_ms: recent.waited_ms }),
      ...(outcome.approval ? { approval: outcome.approval.decision } : {}),
    });
  }

  #remember(call: CallRecord, recent: RecentCall): void {
    const known = this.#sessions.get(call.session);
    const summary = known ?? {
      session: call.session,
      client: call.client,
      first_call: recent.started,
      last_call: recent.started,
      calls: 0,
      recent: [],
    };
    // Most recently active last in the map: delete and set again.
    this.#sessions.delete(call.session);
    this.#sessions.set(call.session, summary);
    summary.last_call = recent.started;
    summary.calls++;
    summary.recent.push(recent);
    if (summary.recent.length > RECENT_CALLS) summary.recent.shift();
    if (this.#sessions.size > MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
  }
}

/** `ok`, or the error's code (the first word of its text). */
function outcomeOf(outcome: CallOutcome): string {
  if (!outcome.result.isError) return "ok";
  const text = outcome.result.content.find((block) => block.type === "text")?.text ?? "";
  return /^([a-z_]+):/.exec(text)?.[1] ?? "error";
}
