/**
 * Reading stdio's lines for `LineTransport` (`stdio.ts`, through
 * `_stdio_read.ts`): a line gathered up to a bound (past it only its edges
 * are kept, to find its `id`), the checks made before a line is parsed,
 * and where the bytes come from (stdin read straight into one buffer).
 *
 * @module
 */

import type { RequestId } from "@modelcontextprotocol/server";
import { concatBytes } from "../../tools/_bytes.ts";

/** How much of a refused line's start and end is kept to find its `id`. */
const EDGE_BYTES = 512;

/** A line read whole, or one over the bound with what it showed of its `id`. */
export type FinishedLine = { kind: "text"; text: string } | {
  kind: "over";
  bytes: number;
  id: RequestId | null;
};

/** Gathers a line's bytes up to a bound; past it, keeps only its first and last bytes. */
export class LineAccumulator {
  #max: number;
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #head: Uint8Array | undefined;
  #tail: Uint8Array = new Uint8Array(0);
  #decoder = new TextDecoder();

  /** @param max The largest line kept whole, in bytes. */
  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Add the next bytes of the line (without its newline).
   *
   * @param chunk The bytes.
   */
  append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#bytes += chunk.length;
    if (this.#head) {
      this.#tail = lastBytes(this.#tail, chunk);
      return;
    }
    this.#parts.push(chunk);
    if (this.#bytes <= this.#max) return;
    const all = concatBytes(this.#parts);
    this.#head = all.subarray(0, EDGE_BYTES).slice();
    this.#tail = all.subarray(Math.max(0, all.length - EDGE_BYTES)).slice();
    this.#parts = [];
  }

  /**
   * End the line and start the next.
   *
   * @returns The line read whole, or what it showed of its `id` when over the bound.
   */
  finish(): FinishedLine {
    const bytes = this.#bytes;
    const head = this.#head;
    const line: FinishedLine = head
      ? { kind: "over", bytes, id: overId(this.#decoder, head, this.#tail) }
      : { kind: "text", text: this.#decoder.decode(concatBytes(this.#parts)) };
    this.#parts = [];
    this.#bytes = 0;
    this.#head = undefined;
    this.#tail = new Uint8Array(0);
    return line;
  }
}

function lastBytes(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= EDGE_BYTES) return chunk.subarray(chunk.length - EDGE_BYTES).slice();
  const keep = tail.subarray(Math.max(0, tail.length - (EDGE_BYTES - chunk.length)));
  return concatBytes([keep, chunk]).slice();
}

/** The `id` of a line too long to parse: a top-level `"id"` first or last in the object. */
function overId(decoder: TextDecoder, head: Uint8Array, tail: Uint8Array): RequestId | null {
  const first =
    /^\s*\{\s*(?:"[a-z]+"\s*:\s*(?:"[^"\\]*"|[\d.]+)\s*,\s*)*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/
      .exec(decoder.decode(head));
  const last = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\r?$/.exec(decoder.decode(tail));
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as RequestId;
  } catch {
    return null;
  }
}

/**
 * The `id` of a line that is not parsed (too deep), from its edges.
 *
 * @param text The line.
 * @returns The id, or null when none shows.
 */
export function idIn(text: string): RequestId | null {
  const bytes = new TextEncoder().encode(text);
  return overId(new TextDecoder(), bytes.subarray(0, EDGE_BYTES), bytes.subarray(-EDGE_BYTES));
}

/**
 * The `id` of parsed JSON that is not a JSON-RPC message, if it has a usable one.
 *
 * @param json The parsed line.
 * @returns The id, or null.
 */
export function idOf(json: unknown): RequestId | null {
  if (json === null || typeof json !== "object" || !("id" in json)) return null;
  const id = (json as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/**
 * The deepest nesting of `[` and `{` outside strings, without parsing.
 *
 * @param text The line.
 * @returns The depth.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

/** Where the lines' bytes come from: a chunk each read (valid until the next), null at the end. */
export interface ChunkSource {
  /** The next chunk, or null at the end. */
  read(): Promise<Uint8Array | null>;
  /** Stop: the next read gives null. */
  cancel(): Promise<void>;
}

/**
 * A stream's chunks (tests give the transport one).
 *
 * @param stream The stream.
 * @returns The source.
 */
export function streamSource(stream: ReadableStream<Uint8Array>): ChunkSource {
  const reader = stream.getReader();
  return {
    read: () => reader.read().then(({ value, done }) => done ? null : value),
    cancel: () => reader.cancel(),
  };
}

/** How much one read of stdin takes at most. */
const READ_BYTES = 64 * 1024;

/**
 * Stdin read straight into one buffer: Deno's readable stream of it adds a
 * byte stream's controller, a pull and a fresh buffer to every read
 * (`bench/http_ab.ts --stdio`: 0.94-0.97 of the round trip without them).
 *
 * @returns The source; a chunk is valid until the next read.
 */
export function stdinSource(): ChunkSource {
  const buffer = new Uint8Array(READ_BYTES);
  let cancelled = false;
  return {
    read: async () => {
      if (cancelled) return null;
      const n = await Deno.stdin.read(buffer);
      return n === null || cancelled ? null : buffer.subarray(0, n);
    },
    cancel: () => {
      cancelled = true;
      return Promise.resolve();
    },
  };
}
