/**
 * The calls in flight across every connection, so that a shutdown can wait
 * for them (bounded) before it closes the host.
 *
 * @module
 */

/** Counts calls in flight and tells when there are none. */
export class Inflight {
  #count = 0;
  #waiters: Array<() => void> = [];

  /** How many calls are in flight. */
  get count(): number {
    return this.#count;
  }

  /**
   * One call starts.
   *
   * @returns The function that says it ended (once; later calls do nothing).
   */
  begin(): () => void {
    this.#count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
      if (this.#count === 0) this.#waiters.splice(0).forEach((wake) => wake());
    };
  }

  /**
   * Wait until no call is in flight, or at most `ms`; then one more turn of
   * the event loop, in which the answers of the last calls are written.
   *
   * @param ms The longest wait.
   * @returns True when every call ended, false when the wait ran out.
   */
  async settled(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = this.#count === 0
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => this.#waiters.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const settled = await Promise.race([done, late]);
    clearTimeout(timer);
    await new Promise((resolve) => setTimeout(resolve, 0));
    return settled;
  }
}
