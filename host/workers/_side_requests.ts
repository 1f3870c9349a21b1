/**
 * Requests to the workers beside the calls: the doctor's probes, and checks
 * of watched files for calls that run elsewhere. They skip the queue: a
 * worker answers them between the steps of its call.
 *
 * @module
 */

import type { FileChange, FromWorker, Probe, WatchedFile } from "./protocol.ts";
import type { Slot } from "./_slot.ts";

/** A check of watched files, sent to one worker or, when none is free, to each. */
interface Check {
  /** The workers asked and not yet replaced. */
  slots: Set<Slot>;
  finish(changes: FileChange[]): void;
}

/** A worker's answer to a probe or a check. */
export type SideAnswer = Extract<FromWorker, { type: "probe_result" | "checked" }>;

/** The probes and checks sent and not yet answered. */
export class SideRequests {
  #probes = new Map<number, (error: string | null) => void>();
  #checks = new Map<number, Check>();

  /**
   * Ask a worker to try a raw operation with no resolver in the way.
   *
   * @param slot The worker.
   * @param request The request's id, the operation and its target.
   * @returns The error's name, or null when it succeeded.
   */
  probe(slot: Slot, request: { id: number; probe: Probe; target: string }): Promise<string | null> {
    return new Promise((resolve) => {
      this.#probes.set(request.id, resolve);
      slot.send({ type: "probe", ...request });
    });
  }

  /**
   * Ask workers to check watched files; the first answer counts.
   *
   * @param asked The workers.
   * @param request The request's id, the files, and how long to wait for an answer.
   * @returns What changed; nothing when no worker answered in time.
   */
  check(
    asked: readonly Slot[],
    request: { id: number; watch: WatchedFile[]; timeoutMs: number },
  ): Promise<FileChange[]> {
    const { id, watch } = request;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish([]), request.timeoutMs);
      const finish = (changes: FileChange[]) => {
        clearTimeout(timer);
        this.#checks.delete(id);
        resolve(changes);
      };
      this.#checks.set(id, { slots: new Set(asked), finish });
      for (const slot of asked) slot.send({ type: "check", id, watch });
    });
  }

  /**
   * Take a worker's answer to a probe or a check.
   *
   * @param message The answer.
   */
  answer(message: SideAnswer): void {
    if (message.type === "probe_result") {
      this.#probes.get(message.id)?.(message.error);
      this.#probes.delete(message.id);
    } else {
      this.#checks.get(message.id)?.finish(message.changes);
    }
  }

  /**
   * A worker was replaced: its checks will not be answered; a check no other
   * worker will answer finds no changes.
   *
   * @param slot The worker's slot.
   */
  forget(slot: Slot): void {
    for (const check of [...this.#checks.values()]) {
      if (check.slots.delete(slot) && check.slots.size === 0) check.finish([]);
    }
  }

  /** Answer every check with no changes (the pool is closing). */
  finishAll(): void {
    for (const check of [...this.#checks.values()]) check.finish([]);
  }
}
