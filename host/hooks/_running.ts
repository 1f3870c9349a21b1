/**
 * The calls in flight, for `GET /api/diagnostics` (seed 001's
 * `/api/gui/diagnostics`, whose `thinking` and `live` said what the GUI's
 * agent was doing): each call from its start to its end, marked while it
 * waits for a human's approval, and sorted by what it does — a shell
 * command, a fetch, another program, or a call.
 *
 * @module
 */

import type { CallObserver, CallRecord } from "../../tools/calls.ts";
import { familyNamed } from "../../tools/families.ts";
import { HOST_TOOL_FAMILIES } from "../../tools/host_tools.ts";
import { eventValue } from "../approvals/mod.ts";

/** The most characters of a call's arguments shown. */
const MAX_ARGS_CHARS = 2000;

/** What a call does. */
export type CallKind = "shell" | "fetch" | "program" | "call";

/** One call in flight. */
export interface RunningCall {
  /** Its number since the Hook API started. */
  call: number;
  /** The tool. */
  tool: string;
  /** `shell` (run_shell), `fetch` (the web tools), `program` (git, bd), else `call`. */
  kind: CallKind;
  /** The session and client that called. */
  session: string;
  /** The client's name/version. */
  client: string;
  /** When it started (UTC ISO). */
  started: string;
  /** How long it has run, in ms. */
  running_ms: number;
  /** Whether it waits for a human's approval now. */
  waiting_for_approval: boolean;
  /** Its arguments, secrets redacted, cut past 2,000 characters of JSON. */
  args: unknown;
}

/** Follows calls from start to end. */
export class RunningCalls implements CallObserver {
  #running = new Map<CallRecord, { call: number; waiting: boolean }>();
  #next = 0;
  #redact: (args: unknown) => unknown;

  /** @param redact Arguments with secrets redacted. */
  constructor(redact: (args: unknown) => unknown) {
    this.#redact = redact;
  }

  /**
   * The calls in flight, oldest first.
   *
   * @param now Now (ms since the epoch).
   * @returns The calls.
   */
  list(now = Date.now()): RunningCall[] {
    return [...this.#running].map(([record, state]) => ({
      call: state.call,
      tool: record.tool,
      kind: kindOf(record.tool),
      session: record.session,
      client: record.client,
      started: record.started.toISOString(),
      running_ms: Math.max(0, now - record.started.getTime()),
      waiting_for_approval: state.waiting,
      args: eventValue(this.#redact(record.args), MAX_ARGS_CHARS),
    }));
  }

  /** @inheritdoc */
  before(call: CallRecord): void {
    this.#running.set(call, { call: ++this.#next, waiting: false });
  }

  /** @inheritdoc */
  waiting(call: CallRecord, waiting: boolean): void {
    const state = this.#running.get(call);
    if (state) state.waiting = waiting;
  }

  /** @inheritdoc */
  after(call: CallRecord): void {
    this.#running.delete(call);
  }
}

/** What a tool does, from its family. */
function kindOf(tool: string): CallKind {
  const family = familyNamed(HOST_TOOL_FAMILIES[tool]);
  if (family?.name === "shell") return "shell";
  if (family?.reachesNetwork) return "fetch";
  if (family?.runsPrograms !== undefined) return "program";
  return "call";
}
