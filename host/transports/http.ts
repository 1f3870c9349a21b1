/**
 * MCP over Streamable HTTP at `/mcp`, both current revisions on the one
 * endpoint: 2025-era clients (2025-11-25, 2025-06-18, …) get sessions of
 * their own (`_http_sessions.ts`); 2026-07-28 requests, which carry their
 * protocol version in each request's `_meta`, are served one by one by the
 * SDK's `createMcpHandler`. Every request first passes the guard (Host,
 * Origin, bearer token).
 *
 * @module
 */

import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type McpHttpHandler,
  type Server,
} from "@modelcontextprotocol/server";
import { hostPort } from "../config/mod.ts";
import type { Host } from "../host.ts";
import type { GatewayExtras } from "./extras.ts";
import { type ClientAccess, type ClientDirectory, DEFAULT_CLIENT } from "../clients/mod.ts";
import { bearerOf, HttpGuard, refusal, unauthorized } from "./_http_guard.ts";
import { LegacySessions } from "./_http_sessions.ts";
import { Inflight } from "./_inflight.ts";
import { tapTransport } from "./_tap.ts";
import { createGateway } from "./server.ts";
import { relayToListeners } from "./_resources.ts";

/** The endpoint's path. */
export const MCP_PATH = "/mcp";

/**
 * How a 2026-07-28 request's session begins: each request is a session of
 * its own (that revision has none), forgotten once it is answered.
 */
const STATELESS_SESSION = "http-stateless";

/** Options for {@linkcode serveHttp}. */
export interface HttpServeOptions {
  /** The address to bind. */
  hostname: string;
  /** The port (0: the system picks). */
  port: number;
  /** The bearer token, or null (the conformance fixtures only). */
  token: string | null;
  /**
   * The clients and their tokens (the host's own among them): each request is its client's, with
   * its rights. Without it, the one `token` has every right.
   */
  clients?: ClientDirectory;
  /** An idle session is closed after this long. */
  idleTimeoutMs: number;
  /** Most sessions open at once. */
  maxSessions: number;
  /** Extras for each new server (the conformance fixtures). */
  extras?: () => GatewayExtras;
}

/** A running HTTP server. */
export interface HttpServing {
  /** The endpoint's URL (with the port the system picked). */
  readonly url: string;
  /**
   * Stop: refuse new requests (503), give calls in flight up to `drainMs`,
   * then close every session and the listener.
   *
   * @param drainMs The longest wait for calls in flight.
   * @returns Whether every call ended within it.
   */
  shutdown(drainMs: number): Promise<boolean>;
  /** Resolves when the listener has closed. */
  readonly finished: Promise<void>;
}

/**
 * Serve a host over Streamable HTTP.
 *
 * @param host The host.
 * @param options Where, the token, the session bounds.
 * @returns The running server.
 * @example
 * ```ts
 * const http = await serveHttp(host, { hostname: "127.0.0.1", port: 8765, token, idleTimeoutMs: 1_800_000, maxSessions: 1000 });
 * await http.shutdown(10_000);
 * ```
 */
export function serveHttp(host: Host, options: HttpServeOptions): Promise<HttpServing> {
  const inflight = new Inflight();
  const maxRequestBodySize = host.policy.limits.maxRequestBytes;
  const { sessions, modern } = eraLegs(host, options, { inflight, maxRequestBodySize });
  const stopRelay = relayToListeners(host, modern.notify);
  const state: { draining: boolean; guard?: HttpGuard } = { draining: false };
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (error) => {
      host.logger.log("error", `HTTP: ${String(error)}`);
      return refusal(500, "Internal Server Error");
    },
  }, (request: Request): Promise<Response> | Response => {
    const { guard } = state;
    if (state.draining || !guard) return stopping();
    return route(request, {
      guard,
      clients: options.clients,
      sessions,
      modern,
      maxRequestBodySize,
      draining: () => state.draining,
    });
  });
  const { port } = server.addr;
  // With clients, a token is judged by their list (the host's own token among them).
  const token = options.clients ? null : options.token;
  state.guard = new HttpGuard({ hostname: options.hostname, port, token });
  return Promise.resolve({
    url: `http://${hostPort({ hostname: options.hostname, port })}${MCP_PATH}`,
    finished: server.finished,
    async shutdown(drainMs) {
      state.draining = true;
      const settled = await inflight.settled(drainMs);
      stopRelay();
      try {
        await sessions.closeAll();
        await modern.close();
      } finally {
        await server.shutdown();
      }
      return settled;
    },
  });
}

/** The answer to a request that comes while the server stops. */
function stopping(): Response {
  return refusal(503, "Service Unavailable: the server is stopping");
}

/** The two legs: 2025-era sessions, and the 2026-07-28 per-request handler. */
function eraLegs(
  host: Host,
  options: HttpServeOptions,
  parts: { inflight: Inflight; maxRequestBodySize: number },
): { sessions: LegacySessions; modern: McpHttpHandler } {
  const traffic = (
    direction: "in" | "out",
    message: JSONRPCMessage,
    session: string,
    client?: string,
  ) => host.sessions.comms(direction, message, session, client);
  const gateway = (extra: { relay?: boolean; session: string; client?: ClientAccess }) =>
    createGateway(host, {
      ...extra,
      calls: parts.inflight,
      ...(options.extras ? { extras: options.extras(), extrasOnly: true } : {}),
    });
  const sessions = new LegacySessions({
    open: (session, client) => gateway({ session, ...(client ? { client } : {}) }),
    onClosed: (session) => host.endSession(session),
    maxSessions: options.maxSessions,
    idleTimeoutMs: options.idleTimeoutMs,
    maxRequestBodySize: parts.maxRequestBodySize,
    onTraffic: traffic,
    onError: (error) => host.logger.log("warn", `HTTP session: ${error.message}`),
    onIdleClosed: (session, client) =>
      host.logger.log(
        "info",
        `HTTP session ${session}${client ? ` of client ${client}` : ""} closed: idle for ${
          options.idleTimeoutMs / 1000
        } s`,
      ),
  });
  const modern = createMcpHandler(({ authInfo }) => {
    // A request of its own: what it read is forgotten once it is answered.
    const session = `${STATELESS_SESSION}-${crypto.randomUUID().slice(0, 8)}`;
    const client = authInfo?.extra?.client as ClientAccess | undefined;
    const server = gateway({ relay: false, session, ...(client ? { client } : {}) });
    endsWith(server, () => host.endSession(session));
    return logged(
      server,
      (direction, message) => traffic(direction, message, session, client?.name),
    );
  }, {
    legacy: "reject",
    // Answered as a stream from the start: a client that goes away is noticed (and its call
    // cancelled) while a response is being written, not while the handler still works on it.
    responseMode: "sse",
    maxRequestBodySize: parts.maxRequestBodySize,
    onerror: (error) => host.logger.log("warn", `HTTP request: ${error.message}`),
  });
  return { sessions, modern };
}

/** When a 2026-07-28 request's server closes (its exchange ended, or the client went away). */
function endsWith(server: Server, ended: () => void): void {
  const closed = server.onclose;
  server.onclose = () => {
    ended();
    closed?.();
  };
}

/** The methods the endpoint answers. */
const METHODS = ["GET", "POST", "DELETE"];

/** One request: the endpoint, the guard, its client, then the era's leg. */
async function route(request: Request, parts: {
  guard: HttpGuard;
  clients: ClientDirectory | undefined;
  sessions: LegacySessions;
  modern: McpHttpHandler;
  maxRequestBodySize: number;
  draining: () => boolean;
}): Promise<Response> {
  if (new URL(request.url).pathname !== MCP_PATH) {
    return refusal(404, `Not Found: the MCP endpoint is ${MCP_PATH}`);
  }
  const refused = parts.guard.refuse(request);
  if (refused) return refused;
  // The list of clients is read again when it changed: a revoked token's next request is refused.
  const token = parts.clients ? bearerOf(request.headers.get("authorization")) : null;
  const found = token === null ? null : await parts.clients!.authenticate(token);
  if (parts.clients && found === null) return unauthorized();
  // The host's own token has every right: its connections are as they were without clients.
  const client = found?.name === DEFAULT_CLIENT ? null : found;
  if (!METHODS.includes(request.method)) {
    return refusal(405, `Method Not Allowed: ${METHODS.join(", ")}`, { Allow: METHODS.join(", ") });
  }
  // A session's requests are 2025-era (2026-07-28 has no sessions): no need to read the body.
  const legacy = request.headers.has("mcp-session-id") ||
    await isLegacyRequest(request, undefined, { maxRequestBodySize: parts.maxRequestBodySize });
  if (parts.draining()) return stopping();
  if (legacy) return await parts.sessions.handle(request, client ?? undefined);
  if (client === null) return await parts.modern.fetch(request);
  const authInfo = { token: "", clientId: client.name, scopes: [], extra: { client } };
  return await parts.modern.fetch(request, { authInfo });
}

/** A server whose messages, once it is connected, go to the session log. */
function logged(
  server: Server,
  traffic: (direction: "in" | "out", message: JSONRPCMessage) => void,
): Server {
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    tapTransport(transport, {
      in: (message) => traffic("in", message),
      out: (message) => traffic("out", message),
    });
  };
  return server;
}
