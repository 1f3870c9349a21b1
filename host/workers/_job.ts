/**
 * A call to the worker pool, from when it is made until it is answered:
 * waiting in the queue, then on a worker.
 *
 * @module
 */

import { errorResult } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { ToWorker } from "./protocol.ts";
import type { PoolCall, PoolResult } from "./pool_types.ts";

/** A call, from when it is made until it is answered: waiting in the queue, then on a worker. */
export interface Job {
  /** The call's id in the messages to and from its worker. */
  id: number;
  /** The tool. */
  name: string;
  /** What its worker is sent. */
  message: Extract<ToWorker, { type: "call" }>;
  /** When the call times out (performance.now() milliseconds); set when a worker takes it. */
  deadline: number;
  /** When it was queued (performance.now() milliseconds). */
  readonly queuedAt: number;
  /** How long it waited for a worker to take it; set when one does. */
  queuedMs?: number;
  /** The call was asked to stop. */
  stopping?: boolean;
  /** Answer the call. */
  resolve(value: PoolResult): void;
  /** Fail the call. */
  reject(error: Error): void;
  /** Progress from the tool. */
  onProgress: PoolCall["onProgress"];
}

/** What {@linkcode newJob} makes a job of. */
export interface JobParts {
  /** The call's id. */
  id: number;
  /** The tool. */
  name: string;
  /** Its raw arguments. */
  args: unknown;
  /** Cancellation, progress and what the session read. */
  call: PoolCall;
  /** Settles the caller's promise with a result. */
  resolve(value: PoolResult): void;
  /** Settles the caller's promise with an error. */
  reject(error: Error): void;
  /** What to do when the client cancels. */
  cancel(job: Job): void;
}

/**
 * Make a job for a call, following its cancellation until it is answered.
 *
 * @param parts The call and how to answer it.
 * @returns The job, not yet queued.
 */
export function newJob(parts: JobParts): Job {
  const { id, name, args, call } = parts;
  const message: Job["message"] = { type: "call", id, name, args };
  if (call.expect) message.expect = call.expect;
  if (call.watch && call.watch.length > 0) message.watch = call.watch;
  const onAbort = () => parts.cancel(job);
  call.signal?.addEventListener("abort", onAbort, { once: true });
  const done = () => call.signal?.removeEventListener("abort", onAbort);
  const job: Job = {
    id,
    name,
    message,
    deadline: Infinity,
    queuedAt: performance.now(),
    onProgress: call.onProgress,
    resolve: (value) => (done(), parts.resolve(value)),
    reject: (error) => (done(), parts.reject(error)),
  };
  return job;
}

/**
 * What a call that was cancelled answers.
 *
 * @param name The tool.
 * @returns The `cancelled` error result.
 */
export function cancelled(name: string): ToolResult {
  return errorResult("cancelled", `${name} was cancelled`);
}
