/**
 * Reading an HTTP/1.x response off a socket, bounded: the head to 64 KiB
 * (interim responses skipped), the body framed by its length, by chunks or
 * by the connection's end, then decoded from gzip or deflate, each step
 * held to the page limit (a small gzip can inflate enormously).
 *
 * @module
 */

import { NetError } from "./protocol.ts";

/** The longest response head accepted. */
const MAX_HEAD_BYTES = 64 * 1024;
/** How much is read from the socket at once. */
const READ_BYTES = 64 * 1024;

/** Bounds and reports of one request. */
export interface HttpLimits {
  /** The most body bytes, as sent and decoded. */
  readonly maxBytes: number;
  /** Stops the request (the socket is closed). */
  readonly signal: AbortSignal;
  /** Told the body bytes received so far. */
  readonly onBytes?: (bytes: number) => void;
}

/** Reads a socket through a buffer: heads, lines, exact counts; at most `maxWire` bytes in all. */
export class SocketReader {
  #conn: Deno.Conn;
  #buffer = new Uint8Array(0);
  #start = 0;
  #ended = false;
  #read = 0;
  #maxWire: number;

  /**
   * @param conn The connection.
   * @param maxWire The most bytes read from it (heads, chunk lines and body together).
   */
  constructor(conn: Deno.Conn, maxWire: number) {
    this.#conn = conn;
    this.#maxWire = maxWire;
  }

  /** Bytes buffered and not yet taken. */
  get buffered(): number {
    return this.#buffer.length - this.#start;
  }

  /** Read more into the buffer; false at the end. */
  async fill(): Promise<boolean> {
    if (this.#ended) return false;
    const chunk = new Uint8Array(READ_BYTES);
    const n = await this.#conn.read(chunk);
    if (n === null) {
      this.#ended = true;
      return false;
    }
    this.#read += n;
    if (this.#read > this.#maxWire) {
      throw tooLarge(this.#maxWire, "counted as sent, with the response's framing");
    }
    const left = this.#buffer.subarray(this.#start);
    const next = new Uint8Array(left.length + n);
    next.set(left);
    next.set(chunk.subarray(0, n), left.length);
    this.#buffer = next;
    this.#start = 0;
    return true;
  }

  /** Where a byte sequence starts among the buffered bytes, or -1. */
  find(sequence: readonly number[], from = 0): number {
    const bytes = this.#buffer;
    outer: for (let i = this.#start + from; i + sequence.length <= bytes.length; i++) {
      for (let j = 0; j < sequence.length; j++) {
        if (bytes[i + j] !== sequence[j]) continue outer;
      }
      return i - this.#start;
    }
    return -1;
  }

  /** Take the first `n` buffered bytes (a copy). */
  take(n: number): Uint8Array {
    const taken = this.#buffer.slice(this.#start, this.#start + n);
    this.#start += taken.length;
    return taken;
  }
}

const CRLF = [13, 10];
const BLANK_LINE = [13, 10, 13, 10];

/** The status line and headers, skipping interim (1xx) responses. */
export async function readHead(
  reader: SocketReader,
): Promise<{ status: number; headers: Headers }> {
  for (;;) {
    let end = reader.find(BLANK_LINE);
    while (end < 0) {
      if (reader.buffered > MAX_HEAD_BYTES) {
        throw new NetError("net_error", "the response's head is over 64 KiB");
      }
      if (!(await reader.fill())) {
        throw new NetError("net_error", "the server closed the connection before answering");
      }
      end = reader.find(BLANK_LINE, Math.max(0, reader.buffered - READ_BYTES - 3));
    }
    if (end + 4 > MAX_HEAD_BYTES) {
      throw new NetError("net_error", "the response's head is over 64 KiB");
    }
    const text = new TextDecoder("latin1").decode(reader.take(end + 4));
    const [statusLine, ...lines] = text.slice(0, -4).split("\r\n");
    const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine ?? "");
    if (!match) {
      throw new NetError(
        "net_error",
        `not an HTTP/1.x response: ${JSON.stringify(statusLine?.slice(0, 80))}`,
      );
    }
    const status = Number(match[1]);
    if (status >= 100 && status < 200) continue;
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon <= 0 || /^\s/.test(line)) {
        throw new NetError("net_error", "a malformed response header");
      }
      try {
        headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      } catch {
        throw new NetError("net_error", "a malformed response header");
      }
    }
    return { status, headers };
  }
}

/** The body, framed as the head says, decoded, within the limit. */
export async function readBody(
  reader: SocketReader,
  head: { status: number; headers: Headers },
  limits: HttpLimits,
): Promise<Uint8Array> {
  if (head.status === 204 || head.status === 304) return new Uint8Array();
  const length = contentLength(head.headers);
  if (length !== null && length > limits.maxBytes) {
    throw tooLarge(limits.maxBytes, `the server says ${length.toLocaleString("en")} bytes`);
  }
  const transfer = (head.headers.get("transfer-encoding") ?? "").trim().toLowerCase();
  if (transfer !== "" && transfer !== "chunked" && transfer !== "identity") {
    throw new NetError(
      "net_error",
      `the response's transfer-encoding is not one read: ${transfer}`,
    );
  }
  const raw = transfer === "chunked"
    ? chunkedBody(reader)
    : length !== null
    ? sizedBody(reader, length)
    : untilClosed(reader);
  const encoding = (head.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  const decoded = decode(raw, encoding, limits.maxBytes);
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of decoded) {
    total += part.length;
    if (total > limits.maxBytes) throw tooLarge(limits.maxBytes, "stopped there");
    parts.push(part);
    limits.onBytes?.(total);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}

/** The Content-Length, or null; anything but one decimal number (repeated alike) is malformed. */
function contentLength(headers: Headers): number | null {
  const header = headers.get("content-length");
  if (header === null) return null;
  const values = new Set(header.split(",").map((value) => value.trim()));
  const [value] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(value!)) {
    throw new NetError(
      "net_error",
      `a malformed Content-Length: ${JSON.stringify(header.slice(0, 40))}`,
    );
  }
  return Number(value);
}

function tooLarge(maxBytes: number, detail: string): NetError {
  return new NetError(
    "too_large",
    `the response is over the download limit of ${
      maxBytes.toLocaleString("en")
    } bytes (net.maxBytes; ${detail})`,
  );
}

async function* sizedBody(reader: SocketReader, length: number): AsyncGenerator<Uint8Array> {
  let left = length;
  while (left > 0) {
    if (reader.buffered === 0 && !(await reader.fill())) {
      throw new NetError("net_error", "the connection closed before the whole body came");
    }
    const part = reader.take(Math.min(left, reader.buffered));
    left -= part.length;
    yield part;
  }
}

async function* untilClosed(reader: SocketReader): AsyncGenerator<Uint8Array> {
  while (reader.buffered > 0 || (await reader.fill())) yield reader.take(reader.buffered);
}

async function* chunkedBody(reader: SocketReader): AsyncGenerator<Uint8Array> {
  for (;;) {
    let end = reader.find(CRLF);
    while (end < 0) {
      if (reader.buffered > 4096 || !(await reader.fill())) {
        throw new NetError("net_error", "a malformed chunked body");
      }
      end = reader.find(CRLF);
    }
    const sizeLine = new TextDecoder().decode(reader.take(end + 2)).trim();
    const digits = /^([0-9a-f]{1,12})[ \t]*(?:;.*)?$/i.exec(sizeLine)?.[1];
    if (digits === undefined) throw new NetError("net_error", "a malformed chunked body");
    const size = parseInt(digits, 16);
    if (size === 0) return; // trailers, if any, are not read: the connection closes
    yield* sizedBody(reader, size);
    while (reader.buffered < 2) {
      if (!(await reader.fill())) throw new NetError("net_error", "a malformed chunked body");
    }
    const after = reader.take(2);
    if (after[0] !== 13 || after[1] !== 10) {
      throw new NetError("net_error", "a malformed chunked body");
    }
  }
}

/** The body through its content coding, each step bounded (a small gzip can inflate enormously). */
async function* decode(
  raw: AsyncGenerator<Uint8Array>,
  encoding: string,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  if (encoding === "identity" || encoding === "") {
    let total = 0;
    for await (const part of raw) {
      total += part.length;
      if (total > maxBytes) throw tooLarge(maxBytes, "stopped there");
      yield part;
    }
    return;
  }
  const format = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate" }[encoding] as
    | CompressionFormat
    | undefined;
  if (!format) {
    throw new NetError("net_error", `the response is in an encoding not asked for: ${encoding}`);
  }
  // Fed a slice at a time: the decompressor inflates each piece it is given whole, and a
  // kilobyte of gzip can become a megabyte, never more, before the limit is checked.
  const compressed = ReadableStream.from(
    slices(decode(raw, "identity", maxBytes)),
  ) as ReadableStream<
    Uint8Array<ArrayBuffer>
  >;
  const stream = compressed.pipeThrough(new DecompressionStream(format));
  try {
    for await (const part of stream) yield part;
  } catch (error) {
    if (error instanceof NetError) throw error;
    throw new NetError(
      "net_error",
      `the ${encoding} body does not decode: ${(error as Error).message}`,
    );
  }
}

/** Each part cut into pieces of at most 1 KiB (copies, never views of shared memory). */
async function* slices(parts: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const part of parts) {
    for (let at = 0; at < part.length; at += 1024) yield part.slice(at, at + 1024);
  }
}
