/**
 * Pacing long work in a tool: yielding to the event loop every few
 * milliseconds (so that the worker can receive a cancellation), throwing
 * when the call was aborted, and reporting progress a few times a second.
 *
 * @module
 */

import { type ToolContext, yieldDue, yieldToWorker } from "./tool.ts";

/**
 * Paces long work: yields to the event loop every few milliseconds (so that
 * the worker can receive a cancellation), throws when the call was aborted
 * and reports progress a few times a second.
 */
export class Pacer {
  #ctx: ToolContext;
  #what: string;
  #count = 0;
  #lastYield = performance.now();
  #lastProgress = performance.now();

  /**
   * @param ctx The tool context (its signal and progress).
   * @param what What is being done, for the progress message ("Walking").
   */
  constructor(ctx: ToolContext, what: string) {
    this.#ctx = ctx;
    this.#what = what;
  }

  /** How many items were counted. */
  get count(): number {
    return this.#count;
  }

  /**
   * Count items done; now and then, yield and report progress.
   *
   * @param items How many items were done since the last tick.
   * @throws The signal's reason when the call was aborted.
   */
  async tick(items = 1): Promise<void> {
    this.#count += items;
    if (!yieldDue(this.#ctx, this.#lastYield)) return;
    const now = performance.now();
    if (now - this.#lastProgress > 250) {
      this.#lastProgress = now;
      this.#ctx.progress(this.#count, undefined, `${this.#what}: ${this.#count} entries so far`);
    }
    await yieldToWorker(this.#ctx.signal);
    this.#lastYield = performance.now();
  }
}
