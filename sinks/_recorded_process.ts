/**
 * A stdio MCP server the host starts (an upstream server, an efferent-copy
 * peer), recorded in the session's subprocess log when it ends: when its
 * process closes, or as the host closes it. The SDK's transport does not
 * say how the process exited, so its exit code is recorded as unknown
 * (null); its standard output is counted as the messages it sent, and its
 * standard error, when piped, is read (so a chatty server never blocks on
 * a full pipe), counted, and its head kept.
 *
 * @module
 */

import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { JSONRPCMessage, MessageExtraInfo, Transport } from "@modelcontextprotocol/client";
import type { SubprocessLog } from "../tools/sandbox.ts";

/** How a started server is named in the log. */
export interface RecordedAs {
  /** The log (the session's). */
  log: SubprocessLog;
  /** The host's part that started it: `upstream:<name>`, `sink:<name>`. */
  tool: string;
}

/** The first bytes of a stream kept for the record. */
const HEAD_CHARS = 512;

/** A stdio client transport whose process is recorded when it ends. */
export class RecordedProcess implements Transport {
  /** @inheritdoc */
  onclose?: () => void;
  /** @inheritdoc */
  onerror?: (error: Error) => void;
  /** @inheritdoc */
  onmessage?: Transport["onmessage"];
  #inner: StdioClientTransport;
  #confinement: "bwrap" | "unconfined";
  #as: RecordedAs;
  #argv: string[];
  #cwd: string;
  #started: number | undefined;
  #recorded = false;
  #out = { bytes: 0, head: "" };
  #err = { bytes: 0, head: "" };

  /**
   * @param inner The SDK's transport (not started).
   * @param process The program, its arguments and where it runs, as started.
   * @param as The log, and the host's part that starts it.
   */
  constructor(
    inner: StdioClientTransport,
    process: { argv: string[]; cwd: string; confinement: "bwrap" | "unconfined" },
    as: RecordedAs,
  ) {
    this.#inner = inner;
    this.#argv = process.argv;
    this.#cwd = process.cwd;
    this.#confinement = process.confinement;
    this.#as = as;
  }

  /** @inheritdoc */
  async start(): Promise<void> {
    this.#inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      this.#counted(message);
      this.onmessage?.(message, extra);
    };
    this.#inner.onerror = (error: Error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#record();
      this.onclose?.();
    };
    this.#inner.stderr?.on("data", (chunk: Uint8Array | string) => take(this.#err, chunk));
    this.#started = performance.now();
    try {
      await this.#inner.start();
    } catch (error) {
      this.#record();
      throw error;
    }
  }

  /** @inheritdoc */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  /**
   * Close the server: it is recorded at once (the host may be stopping, and
   * not wait for the process to end).
   */
  async close(): Promise<void> {
    this.#record();
    await this.#inner.close();
  }

  /** Count a message the server wrote to standard output (its JSON and newline). */
  #counted(message: JSONRPCMessage): void {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch {
      // A message that cannot be written out again (too deep) was read all the same: not counted.
      return;
    }
    this.#out.bytes += json.length + 1;
    if (this.#out.head.length < HEAD_CHARS) this.#out.head += `${json}\n`.slice(0, HEAD_CHARS);
  }

  /** Record the process once: when it closed, as the host closes it, or when it failed to start. */
  #record(): void {
    if (this.#recorded) return;
    this.#recorded = true;
    this.#as.log.record({
      tool: this.#as.tool,
      argv: this.#argv,
      cwd: this.#cwd,
      confinement: this.#confinement,
      exitCode: null,
      signal: null,
      timedOut: false,
      cancelled: false,
      durationMs: this.#started === undefined ? 0 : performance.now() - this.#started,
      stdoutBytes: this.#out.bytes,
      stderrBytes: this.#err.bytes,
      stdoutHead: this.#out.head.slice(0, HEAD_CHARS),
      stderrHead: this.#err.head,
    });
  }
}

/** Count a chunk of a stream and keep its head. */
function take(stream: { bytes: number; head: string }, chunk: Uint8Array | string): void {
  const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
  stream.bytes += bytes.length;
  if (stream.head.length >= HEAD_CHARS) return;
  const more = new TextDecoder().decode(bytes.subarray(0, HEAD_CHARS));
  stream.head = (stream.head + more).slice(0, HEAD_CHARS);
}
