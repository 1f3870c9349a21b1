/**
 * The limit script's start mark (`START_MARK` of `security/sandbox.ts`) in a
 * run's standard error, and the kill that waits for it: bwrap makes its
 * namespace's init die with it only at the end of its setup, so a bwrap
 * killed during the setup leaves that init, and the program it starts,
 * running on, orphaned. A run is therefore stopped once its script said it
 * started (or it ended by itself, or {@linkcode START_WAIT_MS} went by).
 *
 * @module
 */

import { concatBytes } from "../../tools/_bytes.ts";

/**
 * How long a stop waits for the start mark. A sandbox sets up in
 * milliseconds; one that has not started by then is stopped anyway.
 */
const START_WAIT_MS = 10_000;

/**
 * A SIGKILL for a run that waits for its start mark when it has one.
 *
 * @param child The process (bwrap, or the unconfined shell).
 * @param mark The run's start mark, when its script writes one.
 * @returns `kill` (at once once started, else when the mark comes), and
 *   `dispose` (the run ended: forget the wait).
 */
export function carefulKill(
  child: Deno.ChildProcess,
  mark: StartMark | undefined,
): { kill(): void; dispose(): void } {
  let waiting: ReturnType<typeof setTimeout> | undefined;
  const now = () => {
    clearTimeout(waiting);
    try {
      child.kill("SIGKILL");
    } catch {
      // It ended meanwhile: nothing left to stop.
    }
  };
  return {
    kill() {
      if (mark === undefined || mark.found) return now();
      waiting = setTimeout(now, START_WAIT_MS);
      mark.onFound = now;
    },
    dispose: () => clearTimeout(waiting),
  };
}

/**
 * Finds the first start mark in a stream and cuts it out; the bytes before
 * it (bwrap's own messages) and after it (the program's) pass. Bytes that
 * may begin a mark split across reads are held back until the next read.
 */
export class StartMark {
  #mark: Uint8Array;
  #held = new Uint8Array(0);
  /** Whether the mark came. */
  found = false;
  /** Called once when it comes. */
  onFound: (() => void) | undefined;

  /** @param mark The mark. */
  constructor(mark: string) {
    this.#mark = new TextEncoder().encode(mark);
  }

  /**
   * Take a chunk of the stream.
   *
   * @param chunk The bytes read.
   * @returns What of them (and of those held back) is output.
   */
  take(chunk: Uint8Array): Uint8Array {
    if (this.found) return chunk;
    const bytes = this.#held.length === 0 ? chunk : concatBytes([this.#held, chunk]);
    const at = indexOf(bytes, this.#mark);
    if (at >= 0) {
      this.found = true;
      this.#held = new Uint8Array(0);
      this.onFound?.();
      return concatBytes([bytes.subarray(0, at), bytes.subarray(at + this.#mark.length)]);
    }
    const keep = partialMark(bytes, this.#mark);
    this.#held = bytes.slice(bytes.length - keep);
    return bytes.subarray(0, bytes.length - keep);
  }

  /**
   * The stream ended: what was held back.
   *
   * @returns The bytes.
   */
  end(): Uint8Array {
    const held = this.#held;
    this.#held = new Uint8Array(0);
    return held;
  }
}

/** Where `needle` first occurs in `bytes`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let at = bytes.indexOf(first); at >= 0; at = bytes.indexOf(first, at + 1)) {
    if (at + needle.length > bytes.length) return -1;
    let i = 1;
    while (i < needle.length && bytes[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

/** How many of the last bytes of `bytes` are the beginning of `mark` (at most its length less one). */
function partialMark(bytes: Uint8Array, mark: Uint8Array): number {
  for (let keep = Math.min(mark.length - 1, bytes.length); keep > 0; keep--) {
    let i = 0;
    while (i < keep && bytes[bytes.length - keep + i] === mark[i]) i++;
    if (i === keep) return keep;
  }
  return 0;
}
