/**
 * Stdio's direct route for the call an agent makes most: a `tools/call` of
 * a tool the workers run, on a connection of the 2025 revisions, whose
 * params are only a name, arguments and a progress token. The transport
 * hands it here instead of to the SDK, and the gateway's own call function
 * (`_call_tool.ts`, the SDK's route uses the same) runs it.
 *
 * What the route leaves out is the SDK's checking of what it already holds:
 * the message's JSON-RPC shape and the request's params (checked here, and
 * a message of any other shape goes to the SDK, which answers it as it
 * does), and the result's schema: the host's own result, whose `Content`
 * type has only blocks the schema keeps as they are;
 * `tests/host/transports/direct_route_test.ts` holds the two routes' answers
 * to calls of a dozen tools to be the same. On this machine the SDK's
 * handling took about 30 µs of the host's thread per call, a tenth of a
 * small `read_file`'s round trip (`bench/README.md`).
 *
 * Everything else is the SDK route's: a cancelled call is never answered; a
 * cancellation reaches the newest request with its id, whichever route has
 * it; a thrown error is answered with its code (`-32603` when it has none)
 * and message; progress goes to the client while it is connected; closing
 * the connection aborts the calls in flight. One difference: a rejection
 * that is no error object at all, which the host never makes, is answered
 * as an internal error, where the SDK would not answer.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  type RequestId,
  type Server,
  type ServerNotification,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import type { CallToolRequest } from "@modelcontextprotocol/server";
import type { Host } from "../host.ts";
import type { GatewayCall } from "./_call_tool.ts";

/** What the stdio transport asks before it hands a parsed line to the SDK. */
export interface DirectRoute {
  /**
   * Take a message and answer it, or leave it to the SDK.
   *
   * @param message A parsed line, not yet known to be JSON-RPC.
   * @param send Sends a message to the client (in order with the others).
   * @returns The request's id when it was taken, else undefined.
   */
  take(message: unknown, send: (message: JSONRPCMessage) => Promise<void>): RequestId | undefined;
  /**
   * A request with this id went to the SDK: a cancellation of the id is the
   * SDK's from now on (an older call here with that id runs on, as the SDK's
   * own would when an id is reused).
   *
   * @param id The request's id.
   */
  release(id: RequestId): void;
  /**
   * The client cancelled a request.
   *
   * @param id The request's id.
   * @param reason The client's reason, if it gave one.
   * @returns Whether the route has it (else the SDK may).
   */
  cancel(id: RequestId, reason?: string): boolean;
  /** The connection closed: the calls taken are aborted, and never answered. */
  close(): void;
}

/** The revisions the SDK serves with the 2025 codec: `initialize`-negotiated, one era per connection. */
const LEGACY_REVISIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * The direct route of one stdio connection.
 *
 * @param host The host (which tools the workers run, whether approvals may ask the client).
 * @param server The connection's SDK server (the negotiated revision, the client's capabilities).
 * @param callTool The gateway's call function for this connection.
 * @returns The route.
 */
export function directRoute(host: Host, server: Server, callTool: GatewayCall): DirectRoute {
  /** The call each id's newest request started here, while it runs. */
  const running = new Map<RequestId, AbortController>();
  let closed = false;
  const answer = async (
    id: RequestId,
    params: CallToolRequest["params"],
    controller: AbortController,
    send: (message: JSONRPCMessage) => Promise<void>,
  ): Promise<void> => {
    const { signal } = controller;
    // As the SDK's: nothing is written once the connection has closed.
    const notify = (notification: ServerNotification) =>
      closed
        ? Promise.reject(new Error("Not connected"))
        : send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage);
    let reply: JSONRPCMessage;
    try {
      reply = { jsonrpc: "2.0", id, result: await callTool(params, { signal, notify }) };
    } catch (error) {
      reply = { jsonrpc: "2.0", id, error: wireError(error) };
    } finally {
      if (running.get(id) === controller) running.delete(id);
    }
    // A cancelled request is never answered (MCP); a closed connection answers nothing.
    if (signal.aborted) return;
    // A reply that cannot be written ends the connection (the transport closes): nothing to tell.
    await send(reply).catch(() => {});
  };
  return {
    take(message, send) {
      const request = plainToolCall(message);
      if (closed || !request || !host.runsInWorker(request.params.name)) return undefined;
      const revision = server.getNegotiatedProtocolVersion();
      if (revision === undefined || !LEGACY_REVISIONS.has(revision)) return undefined;
      // An approval may ask the client's user: the SDK's context asks, so the SDK takes the call.
      if (host.approvals && server.getClientCapabilities()?.elicitation) return undefined;
      const controller = new AbortController();
      // A reused id: the newest request has it, as in the SDK's table (the older call runs on).
      running.set(request.id, controller);
      // After this turn's lines are read and logged, as the SDK starts its handlers.
      queueMicrotask(() => void answer(request.id, request.params, controller, send));
      return request.id;
    },
    release(id) {
      running.delete(id);
    },
    cancel(id, reason) {
      const controller = running.get(id);
      controller?.abort(reason);
      return controller !== undefined;
    },
    close() {
      closed = true;
      const error = new Error("Connection closed");
      for (const controller of running.values()) controller.abort(error);
      running.clear();
    },
  };
}

/** A direct route whose connection's server is made later: it takes nothing until then. */
export interface LaterRoute {
  /** The route to give the transport now. */
  readonly route: DirectRoute;
  /**
   * The connection's 2025-era server is made: the route is its from now on.
   *
   * @param route The route of that server ({@linkcode directRoute}).
   */
  bind(route: DirectRoute): void;
}

/**
 * A direct route for a transport made before its server: stdio's, whose
 * server is made for the era the client's first message names (the SDK's
 * `serveStdio`), and only a 2025-era server has a route.
 *
 * @returns The route, and how to bind it to the server's.
 */
export function laterRoute(): LaterRoute {
  let bound: DirectRoute | undefined;
  let closed = false;
  return {
    route: {
      take: (message, send) => bound?.take(message, send),
      release: (id) => bound?.release(id),
      cancel: (id, reason) => bound?.cancel(id, reason) ?? false,
      close() {
        closed = true;
        bound?.close();
      },
    },
    bind(route) {
      if (bound) throw new TypeError("Cannot bind a direct route twice");
      bound = route;
      if (closed) route.close();
    },
  };
}

/**
 * The message as a `tools/call` request the route takes: exactly the
 * JSON-RPC members, an id the SDK accepts (a string or an integer), and
 * params of a name, arguments (an object) and `_meta` with at most a
 * progress token (a string or an integer). Anything else is the SDK's.
 */
function plainToolCall(
  message: unknown,
): { id: RequestId; params: CallToolRequest["params"] } | undefined {
  if (!isRecord(message) || message.method !== "tools/call" || message.jsonrpc !== "2.0") {
    return undefined;
  }
  const { id, params } = message;
  if (!only(message, REQUEST_KEYS) || !isId(id) || !isRecord(params)) return undefined;
  if (!only(params, PARAMS_KEYS) || typeof params.name !== "string") return undefined;
  if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!isRequestMeta(meta) || !only(meta, META_KEYS))) return undefined;
  return { id, params: params as CallToolRequest["params"] };
}

/**
 * A `notifications/cancelled` notification's params as the SDK checks them
 * on the 2025 revisions (it ignores a cancellation that fails the check):
 * the id cancelled (a string or an integer; without one nothing is), a
 * reason that is a string if any, and `_meta` as a request's.
 *
 * @param params The notification's params.
 * @returns The id and reason, or undefined when the SDK would not cancel.
 */
export function cancellation(params: unknown): { id: RequestId; reason?: string } | undefined {
  if (!isRecord(params) || !isId(params.requestId)) return undefined;
  const { requestId: id, reason, _meta: meta } = params;
  if (reason !== undefined && typeof reason !== "string") return undefined;
  if (meta !== undefined && !isRequestMeta(meta)) return undefined;
  return reason === undefined ? { id } : { id, reason };
}

/** A request's (or notification's) `_meta` as the SDK's 2025 schema has it. */
function isRequestMeta(meta: unknown): meta is Record<string, unknown> {
  if (!isRecord(meta)) return false;
  if (meta.progressToken !== undefined && !isId(meta.progressToken)) return false;
  const task = meta[RELATED_TASK];
  return task === undefined || (isRecord(task) && typeof task.taskId === "string");
}

const RELATED_TASK = "io.modelcontextprotocol/related-task";

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAMS_KEYS = new Set(["name", "arguments", "_meta"]);
const META_KEYS = new Set(["progressToken"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function only(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

/** A JSON-RPC id or progress token as the SDK's schema has it: a string or an integer. */
function isId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/**
 * A thrown error as the SDK answers it on the 2025 revisions: its code when
 * it is an integer (`-32002`, resource not found, said as `-32602` there),
 * else internal error; its message; its data when it has some.
 */
function wireError(error: unknown): { code: number; message: string; data?: unknown } {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code)
    ? thrown.code as number
    : ProtocolErrorCode.InternalError;
  return {
    code: code === RESOURCE_NOT_FOUND ? ProtocolErrorCode.InvalidParams : code,
    message: typeof thrown.message === "string" ? thrown.message : "Internal error",
    ...(thrown.data === undefined ? {} : { data: thrown.data }),
  };
}

/** The 2026-07-28 revision's "resource not found" code, which the 2025 codec says as invalid params. */
const RESOURCE_NOT_FOUND = -32002;
