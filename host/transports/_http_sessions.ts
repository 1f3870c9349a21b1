/**
 * The 2025-era HTTP sessions: each client's own SDK server and Streamable
 * HTTP transport over the one shared host, found by an unguessable
 * `Mcp-Session-Id` (404 once closed), closed when idle, all closed at
 * shutdown. A client that drops a response stream with its calls still
 * running gets them cancelled; a stream the server itself ended (polling)
 * stays resumable.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { BoundedEventStore } from "./_event_store.ts";
import { refusal } from "./_http_guard.ts";
import { tapTransport } from "./_tap.ts";
import type { ClientAccess } from "../clients/mod.ts";

/** Options for {@linkcode LegacySessions}. */
export interface LegacySessionsOptions {
  /**
   * A new gateway for a new session.
   *
   * @param session The session's own id for the log and stale reads (never its `Mcp-Session-Id`).
   * @param client The client whose token opened it (none: the one token, every right).
   */
  open(session: string, client: ClientAccess | undefined): Server;
  /** Told when a session closed (DELETE, idle, shutdown), with its own id. */
  onClosed?: (session: string) => void;
  /** Most sessions open at once. */
  maxSessions: number;
  /** A session idle this long (no request, no message, no call running) is closed. */
  idleTimeoutMs: number;
  /** The largest request body read. */
  maxRequestBodySize: number;
  /** Told of every message in and out, with the session's own id and client (the session log); must not throw. */
  onTraffic?: (
    direction: "in" | "out",
    message: JSONRPCMessage,
    session: string,
    client: string | undefined,
  ) => void;
  /** Told of errors the transports report. */
  onError?: (error: Error) => void;
  /** Told of a session closed for being idle, with its own id and its client's name. */
  onIdleClosed?: (session: string, client: string | undefined) => void;
}

/** The open sessions, by id. */
export class LegacySessions {
  #options: LegacySessionsOptions;
  #sessions = new Map<string, LegacySession>();
  #sweep: ReturnType<typeof setInterval>;

  /** @param options How sessions are opened and bounded. */
  constructor(options: LegacySessionsOptions) {
    this.#options = options;
    const every = Math.max(1000, Math.min(options.idleTimeoutMs / 2, 60_000));
    this.#sweep = setInterval(() => this.#closeIdle(), every);
    Deno.unrefTimer(this.#sweep as unknown as number);
  }

  /**
   * Serve one HTTP request of a session, or the `initialize` that opens one.
   *
   * @param request The request (its Host, Origin and token already checked).
   * @param client The client its token is (none: the one token, every right).
   * @returns The response.
   */
  async handle(request: Request, client?: ClientAccess): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session) return refusal(404, "Session not found: it was closed; initialize a new one");
      // A session stays its client's: another token cannot take it over.
      if (session.client?.sha256 !== client?.sha256) {
        return refusal(403, "Forbidden: this session was opened with another client's token");
      }
      return await session.serve(request);
    }
    if (request.method !== "POST") {
      return refusal(400, "Bad Request: no Mcp-Session-Id; POST an initialize request first");
    }
    if (this.#sessions.size >= this.#options.maxSessions) {
      return refusal(503, `Service Unavailable: ${this.#options.maxSessions} sessions are open`);
    }
    const session = await LegacySession.open(this.#options, {
      opened: (id) => this.#sessions.set(id, session),
      closed: (id) => this.#sessions.delete(id),
    }, client);
    const response = await session.serve(request);
    // Not an initialize (the transport answered 400): nothing was opened.
    if (session.id === undefined) await session.close();
    return response;
  }

  /** Close every session (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.close()));
  }

  #closeIdle(): void {
    const before = Date.now() - this.#options.idleTimeoutMs;
    for (const session of this.#sessions.values()) {
      if (!session.idleSince(before)) continue;
      this.#options.onIdleClosed?.(session.name, session.client?.name);
      session.close().catch((error) => this.#options.onError?.(error));
    }
  }
}

/** One client's session: its server, transport and calls in flight. */
class LegacySession {
  /** The session's own id: in the log, for stale reads; never the `Mcp-Session-Id`. */
  readonly name: string = crypto.randomUUID();
  /** The client whose token opened it. */
  readonly client: ClientAccess | undefined;
  #transport: WebStandardStreamableHTTPServerTransport;
  #deliver: (message: JSONRPCMessage) => void = () => {};
  /** Calls in flight, and the HTTP request that carried each. */
  #running = new Map<RequestId, Request>();
  #lastActive = Date.now();
  #closed = false;

  private constructor(
    transport: WebStandardStreamableHTTPServerTransport,
    client: ClientAccess | undefined,
  ) {
    this.#transport = transport;
    this.client = client;
  }

  /** Make a session's transport and server, connected. */
  static async open(
    options: LegacySessionsOptions,
    table: { opened: (id: string) => void; closed: (id: string) => void },
    client: ClientAccess | undefined,
  ): Promise<LegacySession> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => table.opened(id),
      eventStore: new BoundedEventStore(),
      // How long a client waits before it resumes a stream the server closed (SSE polling).
      retryInterval: 1000,
      maxRequestBodySize: options.maxRequestBodySize,
    });
    const session = new LegacySession(transport, client);
    const server = options.open(session.name, client);
    const closed = server.onclose;
    server.onclose = () => {
      session.#closed = true;
      if (transport.sessionId !== undefined) table.closed(transport.sessionId);
      options.onClosed?.(session.name);
      closed?.();
    };
    await server.connect(transport);
    session.#watch(options);
    return session;
  }

  /** The session id, once `initialize` gave it one. */
  get id(): string | undefined {
    return this.#transport.sessionId;
  }

  /**
   * Whether the session has been idle since before a time.
   *
   * @param time The time, in ms since the epoch.
   * @returns True when nothing happened since and no call runs.
   */
  idleSince(time: number): boolean {
    return this.#running.size === 0 && this.#lastActive < time;
  }

  /**
   * Serve one HTTP request; a client that goes away before its response
   * ended gets the calls that response was to answer cancelled.
   *
   * @param request The request.
   * @returns The response.
   */
  async serve(request: Request): Promise<Response> {
    this.#lastActive = Date.now();
    // With Deno's --unstable-no-legacy-abort (the served process has it), the signal aborts only
    // when the client goes away before its response ended; a response that ended (the call
    // answered, or a stream the server closed for polling) never aborts it.
    if (request.method === "POST") {
      request.signal.addEventListener("abort", () => this.#dropped(request), { once: true });
    }
    return await this.#transport.handleRequest(request);
  }

  /** Close the transport (the server stops with it). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
  }

  /** Follow messages in and out: calls in flight, activity, the session log. */
  #watch(options: LegacySessionsOptions): void {
    this.#deliver = tapTransport(this.#transport, {
      in: (message, extra) => {
        this.#lastActive = Date.now();
        if ("method" in message && "id" in message && extra?.request) {
          this.#running.set(message.id, extra.request);
        }
        // A cancelled request is never answered: it no longer keeps the session busy.
        if ("method" in message && message.method === "notifications/cancelled") {
          this.#running.delete((message.params as { requestId?: RequestId }).requestId ?? "");
        }
        options.onTraffic?.("in", message, this.name, this.client?.name);
      },
      // What the server sends is not the client's activity: a client gone idle lets its session close.
      out: (message) => {
        if (!("method" in message) && "id" in message && message.id !== undefined) {
          this.#running.delete(message.id);
        }
        options.onTraffic?.("out", message, this.name, this.client?.name);
      },
    });
    this.#transport.onerror = (error) => options.onError?.(error);
  }

  /** The client dropped the stream of `request`: cancel the calls it was to answer. */
  #dropped(request: Request): void {
    for (const [id, carrier] of this.#running) {
      if (carrier !== request) continue;
      this.#running.delete(id);
      this.#deliver({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "The client closed the connection" },
      });
    }
  }
}
