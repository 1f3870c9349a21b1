/**
 * MCP over stdio, one JSON-RPC message per line, hardened against its
 * client: a line over the size bound is skipped as it streams in (never
 * held whole) and answered with a JSON-RPC error; malformed or too deeply
 * nested lines are answered too, and the transport keeps reading
 * (`_stdio_read.ts` turns the bytes into JSON values or refusals). The
 * SDK's own stdio transport holds a line whole and closes (the process then
 * exits, status 0) past 10 MiB.
 *
 * When the client closes our stdin it is ending the session (MCP's stdio
 * shutdown): the transport closes once every request it sent is answered or
 * cancelled (a cancelled request is never answered), or at most
 * {@linkcode MAX_END_GRACE_MS} later; closing it aborts the calls still
 * running, and the host then stops.
 *
 * A worker tool's plain call may be answered by a direct route (`_direct.ts`)
 * instead of the SDK; every other message goes to the SDK. A gate
 * (`_stdio_gate.ts`) may first refuse what HTTP refuses (a request before
 * `initialize`), and split a batch into its messages.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  ProtocolErrorCode,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/server";
import { type ChunkSource, idOf, stdinSource, streamSource } from "./_lines.ts";
import { readLines } from "./_stdio_read.ts";
import { type StdoutWriter, stdoutWriter } from "./_stdout.ts";
import { cancellation, type DirectRoute } from "./_direct.ts";
import type { SessionGate } from "./_stdio_gate.ts";

/** The deepest nesting of arrays and objects a message may have. */
export { MAX_MESSAGE_DEPTH } from "./_stdio_read.ts";

/**
 * The longest a client that closed our stdin waits for the process to end
 * (beside the host's own shutdown, which takes milliseconds): requests still
 * unanswered get at most this long, then they are aborted.
 */
export const MAX_END_GRACE_MS = 500;

/** How long to wait before writing again to a non-blocking stdout that was full. */
const WOULD_BLOCK_RETRY_MS = 5;

/** The notification by which a client cancels one of its requests. */
const CANCELLED = "notifications/cancelled";

/** Options for {@linkcode LineTransport}. */
export interface LineTransportOptions {
  /** The largest line read, in bytes. */
  maxMessageBytes: number;
  /**
   * How long after the input ends unanswered requests still get their answer
   * (at most {@linkcode MAX_END_GRACE_MS}).
   */
  endGraceMs: number;
  /** Where messages come from (default: stdin). */
  input?: ReadableStream<Uint8Array>;
  /** Where messages go (default: stdout, written asynchronously; see `_stdout.ts`). */
  output?: StdoutWriter;
  /**
   * Takes some requests before the SDK sees them, and answers them itself
   * (`_direct.ts`); every other message goes to `onmessage`.
   */
  direct?: DirectRoute;
  /**
   * Refuses what the HTTP endpoint refuses before a server sees it, and
   * reads a batch's messages one by one (`_stdio_gate.ts`). Without it, a
   * batch is refused as not JSON-RPC and every message is read.
   */
  gate?: SessionGate;
  /** Told of each refused line (for the host's log). */
  onRefused?: (why: string) => void;
  /**
   * Told of every message read and every message sent (the session's log);
   * it must return at once and never throw.
   */
  onTraffic?: (direction: "in" | "out", message: JSONRPCMessage) => void;
}

/** A stdio transport that no single message can stop. */
export class LineTransport implements Transport {
  /** @inheritdoc */
  onclose?: () => void;
  /** @inheritdoc */
  onerror?: (error: Error) => void;
  /** @inheritdoc */
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #options: LineTransportOptions;
  #output: StdoutWriter;
  #reader: ChunkSource | undefined;
  #writing: Promise<void> = Promise.resolve();
  #unanswered = new Set<RequestId>();
  #ended = false;
  #closed = false;
  #grace: ReturnType<typeof setTimeout> | undefined;
  #encoder = new TextEncoder();
  #send = (message: JSONRPCMessage) => this.send(message);

  /** @param options Bounds, streams, and where refusals are told. */
  constructor(options: LineTransportOptions) {
    this.#options = options;
    this.#output = options.output ?? stdoutWriter(null);
  }

  /** Start reading (in the background). */
  start(): Promise<void> {
    if (this.#reader) throw new TypeError("Cannot start a LineTransport twice");
    this.#reader = this.#options.input ? streamSource(this.#options.input) : stdinSource();
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
    this.#options.onTraffic?.("out", message);
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
    clearTimeout(this.#grace);
    this.#options.direct?.close();
    await this.#reader?.cancel().catch(() => {
      // stdin already closed: nothing is left to cancel.
    });
    this.onclose?.();
  }

  async #read(): Promise<void> {
    try {
      await readLines(this.#reader!, {
        maxMessageBytes: this.#options.maxMessageBytes,
        onJson: (json) => this.#admit(json),
        onRefusal: (id, code, message) => this.#refuse(id, code, message),
      });
    } catch (error) {
      if (!this.#closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    this.#ended = true;
    this.#closeIfDone();
    if (this.#closed) return;
    const graceMs = Math.min(this.#options.endGraceMs, MAX_END_GRACE_MS);
    this.#grace = setTimeout(() => void this.close(), graceMs);
  }

  /**
   * A parsed line past the gate, if there is one: a batch refused whole
   * (with the id `null`, as HTTP) or read message by message; a message
   * refused, or read.
   */
  #admit(json: unknown): void {
    const { gate } = this.#options;
    if (!gate) return this.#dispatch(json);
    if (Array.isArray(json)) {
      const refused = gate.batch(json);
      if (refused) this.#refuse(null, refused.code, refused.message, refused.data);
      else for (const message of json) this.#dispatch(message);
      return;
    }
    const refused = gate.message(json);
    if (!refused) return this.#dispatch(json);
    const id = idOf(json);
    // A notification (no id) is never answered: the refusal is only told.
    if (id === null) this.#options.onRefused?.(refused.message);
    else this.#refuse(id, refused.code, refused.message, refused.data);
  }

  /** A parsed message: the direct route's, or the SDK's once it is known to be JSON-RPC. */
  #dispatch(json: unknown): void {
    const taken = this.#options.direct?.take(json, this.#send);
    if (taken !== undefined) {
      this.#unanswered.add(taken);
      this.#options.onTraffic?.("in", json as JSONRPCMessage);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(json);
    } catch {
      const id = idOf(json);
      this.#refuse(
        id,
        ProtocolErrorCode.InvalidRequest,
        "Cannot read the request: it is not JSON-RPC 2.0",
      );
      return;
    }
    if ("method" in message && "id" in message) {
      this.#unanswered.add(message.id);
      this.#options.direct?.release(message.id);
    }
    this.#options.onTraffic?.("in", message);
    this.#deliver(message);
  }

  /** Give a message to the SDK, unless it cancels a call the direct route has: that is the route's. */
  #deliver(message: JSONRPCMessage): void {
    const cancelled = "method" in message && message.method === CANCELLED
      ? cancellation(message.params)
      : undefined;
    // The SDK has no newer request with the id of a call the route has.
    if (!cancelled || !this.#options.direct?.cancel(cancelled.id, cancelled.reason)) {
      this.onmessage?.(message);
    }
    // A request the client cancelled is never answered (MCP): it no longer holds the end.
    if (cancelled) {
      this.#unanswered.delete(cancelled.id);
      this.#closeIfDone();
    }
  }

  #refuse(id: RequestId | null, code: number, message: string, data?: unknown): void {
    this.#options.onRefused?.(message);
    const error = {
      jsonrpc: "2.0",
      id,
      error: { code, message, ...(data === undefined ? {} : { data }) },
    };
    // An error without an id (`null`) is valid JSON-RPC but not in the SDK's message type.
    void this.send(error as unknown as JSONRPCMessage).catch(() => {});
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    try {
      while (offset < bytes.length) {
        try {
          offset += await this.#output.write(bytes.subarray(offset));
        } catch (error) {
          // A non-blocking stdout that is full: wait for the client to read, then go on.
          if (!(error instanceof Deno.errors.WouldBlock)) throw error;
          await new Promise((resolve) => setTimeout(resolve, WOULD_BLOCK_RETRY_MS));
        }
      }
    } catch (error) {
      // Part of a message may be out: nothing written after it could be read. The session ends.
      void this.close();
      throw error;
    }
  }

  #closeIfDone(): void {
    if (this.#ended && this.#unanswered.size === 0) void this.close();
  }
}
