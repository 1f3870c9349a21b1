/**
 * Busy waits kept only while they pay. The host's thread waits briefly for a
 * lone call's answer, and a worker polls for the next call after answering
 * one: each costs a core while it lasts, and pays only when what it waits for
 * comes within it. Where waits keep ending empty (calls that take longer, a
 * client that pauses between calls, a machine whose cores are all busy, where
 * the wait takes CPU from the very thread it waits for), ever more turns go
 * without one; one wait that pays brings them back for every turn.
 *
 * @module
 */

/** Empty waits in a row before turns start going without one. */
const MISSES_BEFORE_SKIPPING = 4;

/**
 * Whether to busy-wait at each turn: always while waits pay; after
 * {@linkcode MISSES_BEFORE_SKIPPING} empty ones in a row, each further empty
 * wait skips a number of turns that doubles, up to a cap, then waits again.
 */
export class PayingWaits {
  #misses = 0;
  /** How many turns the next miss skips (counted in turns, not ms): 1, doubled at each miss. */
  #nextSkip = 1;
  #mostSkipped: number;
  #toSkip = 0;

  /**
   * @param mostSkipped The most turns in a row that go without a wait.
   */
  constructor(mostSkipped: number) {
    this.#mostSkipped = mostSkipped;
  }

  /** Whether to busy-wait at this turn. */
  worthIt(): boolean {
    if (this.#toSkip === 0) return true;
    this.#toSkip--;
    return false;
  }

  /**
   * Be told how a wait ended.
   *
   * @param paid Whether what it waited for came within it.
   */
  ended(paid: boolean): void {
    if (paid) {
      this.#misses = 0;
      this.#nextSkip = 1;
      return;
    }
    if (++this.#misses < MISSES_BEFORE_SKIPPING) return;
    this.#toSkip = this.#nextSkip;
    this.#nextSkip = Math.min(this.#nextSkip * 2, this.#mostSkipped);
  }
}
