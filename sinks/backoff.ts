/**
 * Exponential backoff for what reconnects or restarts (efferent-copy peers,
 * upstream servers): the first wait, doubled at each failure in a row, up
 * to a cap; a success starts over.
 *
 * @module
 */

/** Waits that double at each failure in a row, up to a cap. */
export class Backoff {
  #firstMs: number;
  #maxMs: number;
  #failures = 0;

  /**
   * @param firstMs The wait after the first failure.
   * @param maxMs The longest wait.
   * @throws {RangeError} When the waits are not positive or the cap is below the first.
   */
  constructor(firstMs: number, maxMs: number) {
    if (!(firstMs > 0) || !(maxMs >= firstMs)) {
      throw new RangeError(`Cannot back off from ${firstMs} ms up to ${maxMs} ms`);
    }
    this.#firstMs = firstMs;
    this.#maxMs = maxMs;
  }

  /** Failures in a row so far. */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Count one more failure.
   *
   * @returns How long to wait before the next try: the first wait, doubled
   * for each earlier failure in a row, at most the cap.
   */
  fail(): number {
    const wait = Math.min(this.#firstMs * 2 ** Math.min(this.#failures, 30), this.#maxMs);
    this.#failures++;
    return wait;
  }

  /** A success: the next failure waits the first wait again. */
  reset(): void {
    this.#failures = 0;
  }
}
