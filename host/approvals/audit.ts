/**
 * The approvals' audit file, `<state dir>/approvals.jsonl`: one line per
 * decision (who, through which channel, for which exact call), appended in
 * order, mode 0600. A write that fails is said in the host's log once and
 * the next decision tries again.
 *
 * @module
 */

import type { HostLogger } from "../logger.ts";

/** The audit file's name in the state directory. */
export const AUDIT_FILE = "approvals.jsonl";

/** Appends decisions to the audit file, one write at a time. */
export class AuditFile {
  #path: string;
  #logger: HostLogger;
  #chain: Promise<void> = Promise.resolve();
  #failing = false;

  /**
   * @param stateDir The state directory.
   * @param logger Where a failed write is said.
   */
  constructor(stateDir: string, logger: HostLogger) {
    this.#path = `${stateDir}/${AUDIT_FILE}`;
    this.#logger = logger;
  }

  /**
   * Append one decision.
   *
   * @param line The decision.
   */
  append(line: Record<string, unknown>): void {
    const text = `${JSON.stringify(line)}\n`;
    this.#chain = this.#chain.then(async () => {
      try {
        await Deno.writeTextFile(this.#path, text, { append: true, mode: 0o600 });
        this.#failing = false;
      } catch (error) {
        if (!this.#failing) {
          this.#logger.log(
            "error",
            `Cannot append to the approvals audit ${this.#path}`,
            String(error),
          );
        }
        this.#failing = true;
      }
    });
  }

  /** Resolves when every decision so far is written (or its failure said). */
  flush(): Promise<void> {
    return this.#chain;
  }
}
