/**
 * The pool's receiving path: each message from a worker goes to the call it
 * answers, the probe or check it answers, or the host's log. With a single
 * call in flight the host waits for the answer briefly, blocking on the
 * shared mailbox, before it falls back to the event loop (while such waits
 * get answers: {@linkcode BriefWaits}).
 *
 * @module
 */

import { UnknownToolError } from "../../tools/registry.ts";
import type { SubprocessLog, SubprocessRecord } from "../../tools/sandbox.ts";
import type { HostLogger } from "../logger.ts";
import type { FromWorker } from "./protocol.ts";
import type { PoolResult } from "./pool_types.ts";
import type { Job } from "./_job.ts";
import type { Slot } from "./_slot.ts";
import type { SideRequests } from "./_side_requests.ts";
import { PayingWaits } from "./_paying_waits.ts";

/** How long the host blocks for a lone call's answer before waiting through the event loop. */
const BRIEF_WAIT_MS = 1;
/** The most calls in a row that then go without a brief wait. */
const MOST_SKIPPED = 64;

/** Where a worker's messages go. */
export interface Receiver {
  /** The host's log, for the worker's log messages. */
  logger: HostLogger;
  /** The probes and checks waiting for answers. */
  requests: SideRequests;
  /** A worker finished its call: hand it the next. */
  freed(): void;
  /** Where the processes the tools ran are recorded (the session log), and what confined them. */
  processes?: { log: SubprocessLog; confinement: SubprocessRecord["confinement"] } | undefined;
}

/** A worker's message about the call it runs. */
type CallMessage = Extract<FromWorker, { type: "progress" | "result" | "unknown_tool" }>;

/**
 * Route one message from a slot's worker.
 *
 * @param slot The worker's slot.
 * @param message The message.
 * @param to Where it goes.
 */
export function receive(slot: Slot, message: FromWorker, to: Receiver): void {
  if (message.type === "log") {
    to.logger.log(message.level, message.message, message.detail);
  } else if (message.type === "probe_result" || message.type === "checked") {
    to.requests.answer(message);
  } else if (message.type === "subprocess") {
    // Named by the call the host gave the worker, not by what the worker says.
    const tool = slot.job?.id === message.id ? slot.job.name : "unknown";
    const confinement = to.processes?.confinement ?? "unconfined";
    // A tool's own process keeps no script: scripts are the sandbox's (its commands).
    const { script: _script, ...process } = message.process;
    to.processes?.log.record({ ...process, tool, confinement });
  } else if (message.type !== "ready" && answerCall(slot, message)) {
    to.freed();
  }
}

/**
 * Pass a worker's message to the call it runs.
 *
 * @returns Whether the message finished the call (the worker is free).
 */
function answerCall(slot: Slot, message: CallMessage): boolean {
  const job = slot.job;
  if (job === undefined || job.id !== message.id) return false;
  if (message.type === "progress") {
    job.onProgress?.(message.progress, message.total, message.message);
    return false;
  }
  slot.release();
  if (message.type === "result") {
    const done: PoolResult = { result: message.result, paths: message.paths };
    if (message.seen) done.seen = message.seen;
    if (message.changes) done.changes = message.changes;
    if (job.queuedMs !== undefined) done.queuedMs = job.queuedMs;
    job.resolve(done);
  } else {
    job.reject(new UnknownToolError(job.name));
  }
  return true;
}

/**
 * With one call in flight (an agent calling tools one after another), wait
 * for its answer blocking, for at most a millisecond: most small calls are
 * answered by then, without the cost of waking a parked event loop.
 *
 * @param slot The worker running the call.
 * @param job The call.
 * @param take What to do with each message that comes meanwhile.
 */
export function awaitBriefly(
  slot: Slot,
  job: Job,
  take: (message: FromWorker) => void,
): boolean {
  const until = performance.now() + BRIEF_WAIT_MS;
  while (slot.job === job && slot.ready) {
    const left = until - performance.now();
    if (left <= 0) break;
    const message = slot.take(left);
    if (message === undefined) break;
    take(message);
  }
  return slot.job !== job;
}

/**
 * Whether a lone call's answer is worth a brief wait: it is while brief
 * waits get answers ({@linkcode PayingWaits}); where they end unanswered,
 * up to {@linkcode MOST_SKIPPED} calls in a row go without one.
 */
export class BriefWaits extends PayingWaits {
  constructor() {
    super(MOST_SKIPPED);
  }
}
