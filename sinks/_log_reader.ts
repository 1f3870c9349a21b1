/**
 * Reading log files as streams, line by line, in bounded memory: a chunk
 * and at most one line are held at a time; a longer line is passed over
 * unread and counted. The reader yields to the event loop while it works
 * (so that the host answers other calls meanwhile), reports progress and
 * stops when its signal is aborted.
 *
 * @module
 */

import type { ReadOptions, SkippedLines } from "../tools/interactions.ts";
/** How the reader reads. */
export interface ReaderLimits {
  /** Lines longer than this (in bytes) are skipped unread and counted (default 1 MiB). */
  maxLineBytes: number;
  /** Bytes read at a time (default 64 KiB). */
  chunkBytes: number;
  /** Work this long (ms) between turns of the event loop (default 20). */
  yieldEveryMs: number;
}

/** The defaults of {@linkcode ReaderLimits}. */
export const READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({
  maxLineBytes: 1024 * 1024,
  chunkBytes: 64 * 1024,
  yieldEveryMs: 20,
});

/** Nothing skipped. */
export function noSkips(): SkippedLines {
  return { malformed: 0, too_long: 0, unreadable: 0 };
}

/** Paces a read: checks the signal, reports progress and yields at intervals. */
export class Pacer {
  #options: ReadOptions;
  #every: number;
  #total: number;
  #read = 0;
  #last = performance.now();

  /**
   * @param options The read's signal and progress listener.
   * @param total Bytes to read in all.
   * @param everyMs Work this long between yields.
   */
  constructor(options: ReadOptions, total: number, everyMs: number) {
    this.#options = options;
    this.#total = total;
    this.#every = everyMs;
  }

  /** Say that the read starts. */
  start(): void {
    this.#options.signal?.throwIfAborted();
    this.#options.onProgress?.(0, this.#total);
  }

  /**
   * Count bytes read; yield to the event loop when it is time.
   *
   * @param bytes Bytes read since the last step.
   * @throws The signal's reason once it is aborted.
   */
  async step(bytes: number): Promise<void> {
    this.#read += bytes;
    this.#options.signal?.throwIfAborted();
    if (performance.now() - this.#last < this.#every) return;
    this.#options.onProgress?.(this.#read, this.#total);
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#last = performance.now();
    this.#options.signal?.throwIfAborted();
  }
}

/**
 * Visit the lines of the first `size` bytes of a file, in order. A line is
 * given as bytes that stay valid only during the call. A last line with no
 * newline is given too (a torn one then fails to parse).
 *
 * @param file The open file, at its start.
 * @param size How many bytes to read (what the file held when it was opened).
 * @param visit Called with each non-empty line.
 * @param limits Line and chunk sizes.
 * @param pacer Paces the read.
 * @returns How many lines were too long to read.
 */
export async function eachLine(
  file: Deno.FsFile,
  size: number,
  visit: (line: Uint8Array) => void,
  limits: ReaderLimits,
  pacer: Pacer,
): Promise<number> {
  const chunk = new Uint8Array(limits.chunkBytes);
  const line = new LineBuffer(limits.maxLineBytes);
  let left = size;
  let tooLong = 0;
  while (left > 0) {
    const n = await file.read(chunk.subarray(0, Math.min(chunk.length, left)));
    if (n === null) break;
    left -= n;
    const data = chunk.subarray(0, n);
    let start = 0;
    for (let end = data.indexOf(0x0a); end !== -1; end = data.indexOf(0x0a, start)) {
      const whole = line.end(data.subarray(start, end));
      if (whole === undefined) tooLong++;
      else if (whole.length > 0) visit(whole);
      start = end + 1;
    }
    line.add(data.subarray(start));
    await pacer.step(n);
  }
  const last = line.end(new Uint8Array());
  if (last === undefined) tooLong++;
  else if (last.length > 0) visit(last);
  return tooLong;
}

/** The part of a line read so far, up to a limit; past it, only that it was too long. */
class LineBuffer {
  #max: number;
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #over = false;

  constructor(max: number) {
    this.#max = max;
  }

  /** Keep a piece of the line (copied: the chunk is reused). */
  add(piece: Uint8Array): void {
    if (piece.length === 0 || this.#over) return;
    this.#bytes += piece.length;
    if (this.#bytes > this.#max) {
      this.#over = true;
      this.#parts = [];
    } else this.#parts.push(piece.slice());
  }

  /** The whole line, ending with `piece`, or undefined when it was too long; then start anew. */
  end(piece: Uint8Array): Uint8Array | undefined {
    const over = this.#over || this.#bytes + piece.length > this.#max;
    const parts = this.#parts;
    const bytes = this.#bytes;
    this.#parts = [];
    this.#bytes = 0;
    this.#over = false;
    if (over) return undefined;
    if (parts.length === 0) return piece;
    const whole = new Uint8Array(bytes + piece.length);
    let at = 0;
    for (const part of parts) {
      whole.set(part, at);
      at += part.length;
    }
    whole.set(piece, at);
    return whole;
  }
}
