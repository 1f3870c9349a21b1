/**
 * The host's own work after a reply — telling the call's observers (the
 * interaction log, statistics) and writing the session log's lines — done
 * when the host's thread would otherwise only wait: while a tool worker runs
 * the next call (the pool runs it as it begins to wait), or at the latest
 * {@linkcode LATEST_MS} after it was queued. Done right after the reply, it
 * took a CPU from the client reading that reply: over stdio on 2 cores a
 * small `read_file`'s round trip was 6-12% longer (`bench/http_ab.ts
 * --stdio`; over HTTP no difference).
 *
 * Whatever reads what the observers keep runs the work first
 * ({@linkcode IdleWork.run}): the dispatcher before any call that is not a
 * tool worker's, the host before its statistics, the Hook API before it
 * answers.
 *
 * @module
 */

/** The longest queued work waits for a call to come. */
export const LATEST_MS = 10;

/**
 * Work queued until the host's thread is idle. Its timer is armed when work
 * is queued and none is armed, and left to run out when the work is done
 * sooner: a timer per call cost more than the work it saves (about 3 µs to
 * start one here, and the host queued two per call).
 */
export class IdleWork {
  #queue: Array<() => void> = [];
  #every: Array<() => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onError: (error: unknown) => void;

  /** @param onError Told of work that threw (the rest still runs). */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /**
   * Queue work.
   *
   * @param work Synchronous work; it runs once, in the order queued.
   */
  add(work: () => void): void {
    this.#queue.push(work);
    this.#timer ??= setTimeout(() => (this.#timer = undefined, this.run()), LATEST_MS);
  }

  /**
   * Work done at every run, after what was queued: a queue of one's own
   * written out (it keeps its own timer for when no run comes).
   *
   * @param work Synchronous work, cheap when there is nothing to do.
   */
  each(work: () => void): void {
    this.#every.push(work);
  }

  /** Run everything queued now, then the work of every run. */
  run(): void {
    const queue = this.#queue;
    this.#queue = [];
    for (const work of queue) this.#do(work);
    for (const work of this.#every) this.#do(work);
  }

  #do(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Stop the timer (the host closes; it ran the work first). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
