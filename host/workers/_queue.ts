/**
 * The pool's queue and scheduling: calls wait in one queue, oldest first,
 * and go to whichever worker is free first, so a call never waits behind a
 * busy worker while another is free. One timer watches the running calls'
 * deadlines.
 *
 * @module
 */

import type { Job } from "./_job.ts";
import type { Slot } from "./_slot.ts";

/** Options for a {@linkcode CallQueue}. */
export interface QueueOptions {
  /** A call running longer than this (from when a worker takes it) is overdue. */
  callTimeoutMs: number;
  /** Called for a running call past its deadline, until it is asked to stop. */
  overdue(slot: Slot, job: Job): void;
  /**
   * Whether a tool prefers the first worker: code tools go there when it is
   * free, so that one worker holds the parsed trees (and the grammars' wasm
   * memory, which is never given back). Their families declare it.
   */
  prefersCodeWorker(name: string): boolean;
}

/** The calls no worker has taken yet, and which worker takes the next. */
export class CallQueue {
  #slots: readonly Slot[];
  #options: QueueOptions;
  /** Calls no worker has taken yet, oldest first. */
  #waiting: Job[] = [];
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /**
   * Make an empty queue in front of the pool's workers.
   *
   * @param slots The pool's workers (the first is the code worker).
   * @param options The time limit, and what to do past it.
   */
  constructor(slots: readonly Slot[], options: QueueOptions) {
    this.#slots = slots;
    this.#options = options;
  }

  /**
   * Queue a call and hand it to a free worker if there is one.
   *
   * @param job The call.
   */
  add(job: Job): void {
    this.#waiting.push(job);
    this.dispatch();
  }

  /** Hand waiting calls, oldest first, to free workers. */
  dispatch(): void {
    while (this.#waiting.length > 0) {
      const job = this.#waiting[0]!;
      const slot = this.#freeFor(job.name);
      if (slot === undefined) return;
      this.#waiting.shift();
      const now = performance.now();
      job.queuedMs = now - job.queuedAt;
      job.deadline = now + this.#options.callTimeoutMs;
      slot.run(job);
      this.#watchDeadlines();
    }
  }

  /**
   * Take a call out of the queue if no worker has taken it yet.
   *
   * @param job The call.
   * @returns Whether it was waiting.
   */
  withdraw(job: Job): boolean {
    const waiting = this.#waiting.indexOf(job);
    if (waiting < 0) return false;
    this.#waiting.splice(waiting, 1);
    return true;
  }

  /**
   * Empty the queue.
   *
   * @returns The calls that were waiting, oldest first, for the caller to answer.
   */
  drain(): Job[] {
    return this.#waiting.splice(0);
  }

  /**
   * The worker running a call.
   *
   * @param job The call.
   * @returns Its slot, or `undefined` when no worker runs it.
   */
  runningOn(job: Job): Slot | undefined {
    return this.#slots.find((each) => each.job === job);
  }

  /**
   * Count the calls running on workers.
   *
   * @returns How many.
   */
  inFlight(): number {
    let count = 0;
    for (const slot of this.#slots) if (slot.job) count++;
    return count;
  }

  /** Stop watching deadlines (the pool is closing). */
  close(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
  }

  /** A free worker for a call, if any (the code worker first for code tools). */
  #freeFor(name: string): Slot | undefined {
    const free = (slot: Slot) => slot.ready && slot.job === undefined;
    const first = this.#slots[0]!;
    if (this.#options.prefersCodeWorker(name) && free(first)) return first;
    return this.#slots.find(free);
  }

  /**
   * One timer for all deadlines (a timer per call costs more than the call's
   * own round trip): it runs while calls are in flight, and never keeps the
   * process alive.
   */
  #watchDeadlines(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.min(100, Math.max(5, this.#options.callTimeoutMs / 10));
    const sweeper = setInterval(() => {
      const now = performance.now();
      for (const slot of this.#slots) {
        const job = slot.job;
        if (job && !job.stopping && now >= job.deadline) this.#options.overdue(slot, job);
      }
      if (this.inFlight() === 0) {
        clearInterval(sweeper);
        this.#sweeper = undefined;
      }
    }, every);
    Deno.unrefTimer(sweeper as unknown as number);
    this.#sweeper = sweeper;
  }
}
