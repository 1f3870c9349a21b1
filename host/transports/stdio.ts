/**
 * MCP over stdio, one JSON-RPC message per line, hardened against its
 * client: a line over the size bound is skipped as it streams in (never
 * held whole) and answered with a JSON-RPC error; malformed or too deeply
 * nested lines are answered too, and the transport keeps reading. The
 * SDK's own stdio transport holds a line whole and closes (the process then
 * exits, status 0) past 10 MiB.
 *
 * When the client closes our stdin, the transport closes once every request
 * it sent is answered, or `endGraceMs` later.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** The deepest nesting of arrays and objects a message may have. */
export const MAX_MESSAGE_DEPTH = 128;

/** How much of a refused line's start and end is kept to find its `id`. */
const EDGE_BYTES = 512;

const NEWLINE = 0x0a;

/** Options for {@linkcode LineTransport}. */
export interface LineTransportOptions {
  /** The largest line read, in bytes. */
  maxMessageBytes: number;
  /** How long after the input ends unanswered requests still get their answer. */
  endGraceMs: number;
  /** Where messages come from (default: stdin). */
  input?: ReadableStream<Uint8Array>;
  /** Where messages go (default: stdout). */
  output?: { write(bytes: Uint8Array): Promise<number> };
  /** Told of each refused line (for the host's log). */
  onRefused?: (why: string) => void;
}

/** A stdio transport that no single message can stop. */
export class LineTransport implements Transport {
  /** @inheritdoc */
  onclose?: () => void;
  /** @inheritdoc */
  onerror?: (error: Error) => void;
  /** @inheritdoc */
  onmessage?: (message: JSONRPCMessage) => void;
  #options: LineTransportOptions;
  #output: { write(bytes: Uint8Array): Promise<number> };
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #line: LineAccumulator;
  #writing: Promise<void> = Promise.resolve();
  #unanswered = new Set<RequestId>();
  #ended = false;
  #closed = false;
  #encoder = new TextEncoder();

  /** @param options Bounds, streams, and where refusals are told. */
  constructor(options: LineTransportOptions) {
    this.#options = options;
    this.#output = options.output ?? Deno.stdout;
    this.#line = new LineAccumulator(options.maxMessageBytes);
  }

  /** Start reading (in the background). */
  start(): Promise<void> {
    if (this.#reader) throw new TypeError("Cannot start a LineTransport twice");
    this.#reader = (this.#options.input ?? Deno.stdin.readable).getReader();
    void this.#read();
    return Promise.resolve();
  }

  /**
   * Send one message (in order after those sent before).
   *
   * @param message The message.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const bytes = this.#encoder.encode(`${JSON.stringify(message)}\n`);
    const written = this.#writing.then(() => this.#writeAll(bytes));
    // The caller gets this write's failure from `written`; the queue goes on to the next one.
    this.#writing = written.catch(() => {});
    return written.then(() => {
      if (!("method" in message) && "id" in message && message.id !== undefined) {
        this.#unanswered.delete(message.id);
        this.#closeIfDone();
      }
    });
  }

  /** Stop reading and say so. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {
      // stdin already closed: nothing is left to cancel.
    });
    this.onclose?.();
  }

  async #read(): Promise<void> {
    const reader = this.#reader!;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#take(value);
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    this.#ended = true;
    this.#closeIfDone();
    Deno.unrefTimer(setTimeout(() => void this.close(), this.#options.endGraceMs));
  }

  #take(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.#line.append(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.#handle(this.#line.finish());
      start = newline + 1;
    }
  }

  #handle(line: FinishedLine): void {
    if (line.kind === "over") {
      const why = `it is ${line.bytes} bytes, over the limit of ${this.#options.maxMessageBytes}`;
      this.#refuse(line.id, ErrorCode.InvalidRequest, `Cannot read the request: ${why}; send less`);
      return;
    }
    const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
    if (text.trim() === "") return;
    const depth = nestingDepth(text);
    if (depth > MAX_MESSAGE_DEPTH) {
      const why = `it is nested ${depth} levels deep, over the limit of ${MAX_MESSAGE_DEPTH}`;
      this.#refuse(idIn(text), ErrorCode.InvalidRequest, `Cannot read the request: ${why}`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#refuse(null, ErrorCode.ParseError, "Cannot parse the request: it is not JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = idOf(json);
      this.#refuse(id, ErrorCode.InvalidRequest, "Cannot read the request: it is not JSON-RPC 2.0");
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    this.onmessage?.(message);
  }

  #refuse(id: RequestId | null, code: number, message: string): void {
    this.#options.onRefused?.(message);
    const error = { jsonrpc: "2.0", id, error: { code, message } };
    // An error without an id (`null`) is valid JSON-RPC but not in the SDK's message type.
    void this.send(error as unknown as JSONRPCMessage).catch(() => {});
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) offset += await this.#output.write(bytes.subarray(offset));
  }

  #closeIfDone(): void {
    if (this.#ended && this.#unanswered.size === 0) void this.close();
  }
}

/** A line read whole, or one over the bound with what it showed of its `id`. */
type FinishedLine = { kind: "text"; text: string } | {
  kind: "over";
  bytes: number;
  id: RequestId | null;
};

/** Gathers a line's bytes up to a bound; past it, keeps only its first and last bytes. */
class LineAccumulator {
  #max: number;
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #head: Uint8Array | undefined;
  #tail: Uint8Array = new Uint8Array(0);
  #decoder = new TextDecoder();

  constructor(max: number) {
    this.#max = max;
  }

  append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#bytes += chunk.length;
    if (this.#head) {
      this.#tail = lastBytes(this.#tail, chunk);
      return;
    }
    this.#parts.push(chunk);
    if (this.#bytes <= this.#max) return;
    const all = concat(this.#parts);
    this.#head = all.subarray(0, EDGE_BYTES).slice();
    this.#tail = all.subarray(Math.max(0, all.length - EDGE_BYTES)).slice();
    this.#parts = [];
  }

  finish(): FinishedLine {
    const bytes = this.#bytes;
    const head = this.#head;
    const line: FinishedLine = head
      ? { kind: "over", bytes, id: overId(this.#decoder, head, this.#tail) }
      : { kind: "text", text: this.#decoder.decode(concat(this.#parts)) };
    this.#parts = [];
    this.#bytes = 0;
    this.#head = undefined;
    this.#tail = new Uint8Array(0);
    return line;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function lastBytes(tail: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= EDGE_BYTES) return chunk.subarray(chunk.length - EDGE_BYTES).slice();
  const keep = tail.subarray(Math.max(0, tail.length - (EDGE_BYTES - chunk.length)));
  return concat([keep, chunk]).slice();
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

function idIn(text: string): RequestId | null {
  const bytes = new TextEncoder().encode(text);
  return overId(new TextDecoder(), bytes.subarray(0, EDGE_BYTES), bytes.subarray(-EDGE_BYTES));
}

function idOf(json: unknown): RequestId | null {
  if (json === null || typeof json !== "object" || !("id" in json)) return null;
  const id = (json as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** The deepest nesting of `[` and `{` outside strings, without parsing. */
function nestingDepth(text: string): number {
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
