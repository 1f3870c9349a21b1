/**
 * One call of a host's tool as the gateway runs it, whichever route brought
 * it: the SDK's `tools/call` handler, or stdio's direct route (`_direct.ts`).
 * Both give the host the same context and the client the same result.
 *
 * @module
 */

import {
  type CallToolRequest,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type InputRequiredResult,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  type ServerNotification,
} from "@modelcontextprotocol/server";
import { errorResult, UnknownToolError } from "../../tools/registry.ts";
import { DIRECTIVES_META_KEY } from "../../tools/directives.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { Host } from "../host.ts";
import type { Inflight } from "./_inflight.ts";
import { asInputRequired, elicitThrough, roundsOf } from "./_elicit.ts";
import { type ClientAccess, refusalOf } from "../clients/mod.ts";

/**
 * What a tool call runs with besides its params: the SDK's request context,
 * or, on stdio's direct route (`_direct.ts`), its own signal and notifier.
 */
export interface CallMeans {
  /** Aborted when the client cancels the call or goes. */
  signal: AbortSignal;
  /** Send a notification about the call (its progress). */
  notify: (notification: ServerNotification) => Promise<void>;
  /** The SDK's context, for asking the client's user (absent on the direct route, which never does). */
  ctx?: ServerContext;
}

/** Runs one call of a host's tool for a connection, and gives the client's result. */
export type GatewayCall = (
  params: CallToolRequest["params"],
  means: CallMeans,
) => Promise<CallToolResult | InputRequiredResult>;

/** The parts of the gateway's options a call uses (`GatewayOptions` in `server.ts`). */
export interface CallOptions {
  /** The session its calls belong to (default: the host's). */
  session?: string;
  /** Whether the connection lives on (false: a 2026-07-28 request's, answered by input-required rounds). */
  relay?: boolean;
  /** Counts calls in flight. */
  calls?: Inflight;
  /** The client whose token opened the connection, with its rights (none: every right). */
  client?: ClientAccess;
}

/**
 * The function that runs a call of the host's tools for one connection.
 *
 * @param served The host, or undefined when only extras are served (every call is then unknown).
 * @param server The connection's SDK server (its client's name, version and capabilities).
 * @param options Session, relay, calls in flight.
 * @returns The call function.
 */
export function callToolFor(
  served: Host | undefined,
  server: Server,
  options: CallOptions,
): GatewayCall {
  const lives = options.relay !== false;
  return async (params, means) => {
    const { name, arguments: args } = params;
    const ended = options.calls?.begin();
    try {
      if (!served) throw new UnknownToolError(name);
      const context = callContext(served, server, params, means, options);
      const { client } = options;
      const result = toWire(
        client
          ? await clientCall(served, client, { name, args: args ?? {}, context })
          : await served.call(name, args ?? {}, context),
      );
      return (lives ? undefined : asInputRequired(result)) ?? result;
    } catch (error) {
      if (error instanceof UnknownToolError) {
        throw protocolError(ProtocolErrorCode.InvalidParams, error.message);
      }
      throw error;
    } finally {
      ended?.();
    }
  };
}

/**
 * A call of a client with rights of its own: refused when they do not allow the tool or its limits
 * are reached (in the dispatcher, so that the refusal is logged and observed as any call), and run
 * in its roots' scope when they name some.
 */
async function clientCall(
  host: Host,
  client: ClientAccess,
  call: { name: string; args: unknown; context: Parameters<Host["call"]>[2] },
): Promise<ToolResult> {
  const { rights } = client;
  const admit = (tool: string) => {
    const why = refusalOf(rights, tool, host.toolFacts(tool));
    if (why === null) return client.admit();
    const refusal = errorResult(
      "not_permitted",
      `client "${client.name}" may not call ${tool}: ${why}`,
    );
    return { refusal };
  };
  let scope;
  try {
    scope = rights.roots === null ? undefined : await host.scopeOf(rights.roots);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return errorResult("not_permitted", `client "${client.name}"'s roots cannot be served: ${why}`);
  }
  const context = { ...call.context, client: client.name, admit, ...(scope ? { scope } : {}) };
  return await host.call(call.name, call.args, context);
}

/** A call's session, client, cancellation and progress, from the SDK's request context or the direct route's. */
function callContext(
  host: Host,
  server: Server,
  params: CallToolRequest["params"],
  means: CallMeans,
  options: CallOptions,
): Parameters<Host["call"]>[2] {
  const token = params._meta?.progressToken;
  const { ctx } = means;
  const { client, capabilities } = clientOf(server, ctx);
  return {
    signal: means.signal,
    session: options.session ?? host.sessions.id,
    client: client ? `${client.name}/${client.version}` : "unknown",
    ...(params._meta ? { meta: params._meta as Record<string, unknown> } : {}),
    ...(ctx && host.approvals && capabilities?.elicitation
      ? options.relay === false ? { rounds: roundsOf(ctx) } : { elicit: elicitThrough(ctx) }
      : {}),
    ...(token === undefined ? {} : {
      onProgress: (progress: number, total?: number, message?: string) => {
        void means.notify({
          method: "notifications/progress",
          params: {
            progressToken: token,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          },
        }).catch(() => {
          // The client is gone: progress for a call it cannot receive is moot.
        });
      },
    }),
  };
}

/**
 * Who made a call: on 2026-07-28 the request's own `_meta` envelope says
 * (the SDK's HTTP entry also copies it into the server, its stdio entry
 * does not), on the 2025 revisions the server keeps what `initialize` said.
 */
function clientOf(
  server: Server,
  ctx: ServerContext | undefined,
): { client?: Implementation; capabilities?: ClientCapabilities } {
  const envelope: Record<string, unknown> = ctx?.mcpReq.envelope ?? {};
  const client = envelope[CLIENT_INFO_META_KEY] as Implementation | undefined ??
    server.getClientVersion();
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined ??
    server.getClientCapabilities();
  return { ...(client ? { client } : {}), ...(capabilities ? { capabilities } : {}) };
}

/** Directives travel in `_meta["toolhost/directives"]`; everything else is the result as it is. */
function toWire(result: ToolResult): CallToolResult {
  const { directives, ...rest } = result;
  if (!directives || directives.length === 0) return rest as CallToolResult;
  return {
    ...rest,
    _meta: { ...(rest._meta ?? {}), [DIRECTIVES_META_KEY]: directives },
  } as CallToolResult;
}

/**
 * A JSON-RPC error whose message is said once. The SDK sends a thrown
 * error's `code` and `message`, and the client's `McpError` puts
 * `MCP error <code>: ` before the message it receives: an `McpError` thrown
 * here already has that prefix in its message, so the client would say it twice.
 *
 * @param code The JSON-RPC error code.
 * @param message What went wrong, without a prefix.
 * @returns The error to throw from a request handler.
 */
export function protocolError(code: ProtocolErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}
