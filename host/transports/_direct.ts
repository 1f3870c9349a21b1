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
 * does), and the result's schema (the host's own result, the same on both
 * routes; `tests/host/transports/direct_test.ts` holds every tool's to the
 * SDK's schema). On this machine the SDK's handling took about 30 µs of
 * the host's thread per call, a tenth of a small `read_file`'s round trip
 * (`bench/README.md`). Everything else is the SDK route's: a cancelled call
 * is never answered, a thrown error is answered with its code (`-32603`
 * when it has none) and message, progress goes to the client, and closing
 * the connection aborts the calls in flight.
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
   * The client cancelled a request (taken here or not).
   *
   * @param id The request's id.
   * @param reason The client's reason, if it gave one.
   */
  cancel(id: RequestId, reason?: unknown): void;
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
  const running = new Map<RequestId, AbortController>();
  const answer = async (
    id: RequestId,
    params: CallToolRequest["params"],
    controller: AbortController,
    send: (message: JSONRPCMessage) => Promise<void>,
  ): Promise<void> => {
    const { signal } = controller;
    const notify = (notification: ServerNotification) =>
      send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage);
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
      if (!request || running.has(request.id) || !host.runsInWorker(request.params.name)) {
        return undefined;
      }
      const revision = server.getNegotiatedProtocolVersion();
      if (revision === undefined || !LEGACY_REVISIONS.has(revision)) return undefined;
      // An approval may ask the client's user: the SDK's context asks, so the SDK takes the call.
      if (host.approvals && server.getClientCapabilities()?.elicitation) return undefined;
      const controller = new AbortController();
      running.set(request.id, controller);
      // After this turn's lines are read and logged, as the SDK starts its handlers.
      queueMicrotask(() => void answer(request.id, request.params, controller, send));
      return request.id;
    },
    cancel(id, reason) {
      running.get(id)?.abort(reason);
    },
    close() {
      const error = new Error("Connection closed");
      for (const controller of running.values()) controller.abort(error);
      running.clear();
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
  if (meta !== undefined && (!isRecord(meta) || !only(meta, META_KEYS))) return undefined;
  if (meta !== undefined && meta.progressToken !== undefined && !isId(meta.progressToken)) {
    return undefined;
  }
  return { id, params: params as CallToolRequest["params"] };
}

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
