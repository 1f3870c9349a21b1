/**
 * A lean MCP client over the launch users run, for tests that make many
 * thousands of calls: the same command, arguments, working directory and
 * environment as `connectStdio` (`tests/_mcp.ts`: the entry `toolhost
 * mcp-config` prints, started from `/` with the SDK's inherited variables
 * plus the client's `env`), and the same protocol (`initialize`, then
 * `notifications/initialized`, then `tools/call` requests, newline-delimited
 * JSON-RPC). It skips the SDK client's per-message schema checks and its
 * node-stream plumbing: 100,000 calls cost the test process about 18
 * CPU-seconds through the SDK client, about 9 through this one. A test that
 * counts on the SDK to check replies' shapes uses `connectStdio`.
 *
 * @module
 */

import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { type CallResult, clientEnv, type LaunchOptions, mcpConfigFor } from "./_mcp.ts";

/** A connected lean client; `await using` closes it and the server. */
export interface RawSession extends AsyncDisposable {
  /** What the server wrote to stderr. */
  stderr(): string;
  /**
   * Call a tool.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @returns The result.
   * @throws {Error} When the server answers with a JSON-RPC error, or closes first.
   */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
}

/** How much one read of the server's stdout takes at most. */
const READ_BYTES = 64 * 1024;

/** A JSON-RPC message from the server. */
interface Message {
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A request waiting for its answer. */
interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Start the server exactly as `connectStdio` does and initialize an MCP session.
 *
 * @param roots The roots.
 * @param options What else the user gives `mcp-config`, and the client's `env`.
 * @returns The session.
 */
export async function connectRaw(
  roots: readonly string[],
  options: LaunchOptions = {},
): Promise<RawSession> {
  const { command, args } = await mcpConfigFor(roots, options);
  const child = new Deno.Command(command, {
    args,
    cwd: "/",
    env: { ...getDefaultEnvironment(), ...clientEnv(options.env) },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = { text: "" };
  const errors = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderr.text += chunk) }),
  ).catch(() => {
    // The process ended: what it wrote is kept.
  });
  const rpc = new Rpc(child.stdin.getWriter());
  const reading = rpc.read(child.stdout);
  await rpc.request("initialize", {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "toolhost-test", version: "1.0.0" },
  });
  rpc.notify("notifications/initialized");
  return {
    stderr: () => stderr.text,
    call: (name, args = {}) =>
      rpc.request("tools/call", { name, arguments: args }) as Promise<CallResult>,
    async [Symbol.asyncDispose]() {
      await rpc.close();
      await stop(child);
      await Promise.all([reading, errors]);
    },
  };
}

/** End the server as the SDK's transport does: stdin closed, then SIGTERM, then SIGKILL. */
async function stop(child: Deno.ChildProcess): Promise<void> {
  const status = child.status;
  for (const signal of [undefined, "SIGTERM", "SIGKILL"] as const) {
    if (signal) {
      try {
        child.kill(signal);
      } catch {
        // It has already exited.
        break;
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      status.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 2_000))),
    ]);
    clearTimeout(timer);
    if (ended) return;
  }
  await status;
}

/**
 * Newline-delimited JSON-RPC over a child's pipes. The lines written in one turn of the event
 * loop go out in one write (a pipelining client's calls cost one write, not one each).
 */
class Rpc {
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #waiting = new Map<number, Waiting>();
  #next = 1;
  #out: string[] = [];
  #writing: Promise<void> = Promise.resolve();
  #closed: Error | undefined;

  constructor(writer: WritableStreamDefaultWriter<Uint8Array>) {
    this.#writer = writer;
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#next++;
    const answer = new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    this.#send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer;
  }

  notify(method: string): void {
    this.#send(JSON.stringify({ jsonrpc: "2.0", method }));
  }

  /**
   * Read the server's lines to the end, answering the waiting requests. Read into one buffer
   * handed back each time (a default reader allocates 64 KiB for every read, one a call here).
   */
  async read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stdout.getReader({ mode: "byob" });
    const decoder = new TextDecoder();
    let buffer = new ArrayBuffer(READ_BYTES);
    // The start of a line read on, in pieces (a long reply comes in many reads).
    let pieces: string[] = [];
    try {
      for (;;) {
        const { value, done } = await reader.read(new Uint8Array(buffer));
        if (done || !value) break;
        buffer = value.buffer as ArrayBuffer;
        const lines = decoder.decode(value, { stream: true }).split("\n");
        if (lines.length === 1) {
          pieces.push(lines[0]!);
          continue;
        }
        lines[0] = pieces.join("") + lines[0];
        pieces = [lines.pop()!];
        for (const line of lines) if (line.trim() !== "") this.#receive(JSON.parse(line));
      }
    } finally {
      this.#fail(new Error("The server closed the connection"));
    }
  }

  /** Close stdin after what is queued, as the SDK's transport ends a session. */
  async close(): Promise<void> {
    this.#flush();
    await this.#writing;
    await this.#writer.close().catch(() => {
      // The server has gone already.
    });
  }

  #send(line: string): void {
    this.#out.push(line);
    if (this.#out.length === 1) queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    if (this.#out.length === 0) return;
    const bytes = this.#encoder.encode(`${this.#out.join("\n")}\n`);
    this.#out = [];
    this.#writing = this.#writing
      .then(() => this.#writer.write(bytes))
      .catch((error) => this.#fail(new Error(`Cannot write to the server: ${error}`)));
  }

  #receive(message: Message): void {
    if (typeof message.method === "string") {
      // The client declares no capabilities: a request from the server is answered as the SDK's
      // client answers one it has no handler for; a notification needs no answer.
      if (message.id !== undefined) {
        const error = { code: -32601, message: "Method not found" };
        this.#send(JSON.stringify({ jsonrpc: "2.0", id: message.id, error }));
      }
      return;
    }
    const waiting = typeof message.id === "number" ? this.#waiting.get(message.id) : undefined;
    if (!waiting) return;
    this.#waiting.delete(message.id as number);
    if (message.error) {
      waiting.reject(new Error(`MCP error ${message.error.code}: ${message.error.message}`));
    } else waiting.resolve(message.result);
  }

  #fail(error: Error): void {
    this.#closed ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}
