/**
 * The gateway: the one place where MCP meets the host. It lists the
 * dispatcher's tools and runs calls concurrently, relaying cancellation,
 * progress and approvals' elicitations. The low-level SDK `Server` is used:
 * the tools are described by the workers' and upstream servers' JSON
 * Schemas, not by zod schemas registered in this process.
 *
 * @module
 */

import {
  type CallToolRequest,
  type CallToolResult,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/server";
import { UnknownToolError } from "../../tools/registry.ts";
import { DIRECTIVES_META_KEY } from "../../tools/directives.ts";
import type { ToolResult } from "../../tools/tool.ts";
import { ANCHOR_URI } from "../state/mod.ts";
import type { Host } from "../host.ts";
import type { GatewayExtras } from "./extras.ts";
import { Inflight } from "./_inflight.ts";
import { stdioTransport } from "./_stdio_host.ts";
import { asInputRequired, elicitThrough, roundsOf } from "./_elicit.ts";

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: "toolhost", version: "0.1.0" } as const;

/**
 * The instructions the model reads when it connects.
 *
 * @param host The host.
 * @returns The text.
 */
export function instructions(host: Host): string {
  const roots = host.policy.roots.map((root, i) =>
    `- ${root}${i === 0 ? " (primary: relative paths start here)" : ""}`
  );
  return [
    "toolhost gives you fast, exact tools over these project directories (the roots), and nothing outside them:",
    ...roots,
    "",
    "Paths are relative to the primary root, or absolute inside a root. Listings and searches are bounded: when a reply says it was cut, it says how to get the rest.",
    "Prefer the narrow tool: get_file_slice over read_file for a range of lines, grep to find text, search_files to find names, get_tree for layout, edit_file for exact replacements.",
    "Errors start with a stable code you can act on: path_denied (outside the roots or hidden), invalid_path, not_found, not_a_file, not_a_directory, already_exists, too_large (use get_file_slice), binary_file, invalid_argument, no_match, ambiguous_match, syntax_error, stale_read (read the file again), timeout, cancelled, internal_error.",
  ].join("\n");
}

/** Options for {@linkcode createGateway}. */
export interface GatewayOptions {
  /**
   * The session its calls belong to, in the log and for stale reads
   * (default: the host's). HTTP gives each session an id of its own, never
   * the `Mcp-Session-Id` (which would let one client end another's session).
   */
  session?: string;
  /** Extra surface (the conformance suite's fixtures). */
  extras?: GatewayExtras;
  /** Serve the extras only: no host tool, no anchor (the conformance fixtures, served without a token). */
  extrasOnly?: boolean;
  /**
   * Whether the server lives on and relays list changes and subscribed
   * updates (default: yes). A 2026-07-28 request's server does not, and
   * declares neither logging nor subscriptions, which that revision moved
   * elsewhere.
   */
  relay?: boolean;
  /** Counts calls in flight (a shutdown waits for them). */
  calls?: Inflight;
}

/**
 * Make the MCP server for a host (not yet connected): one per stdio
 * connection, HTTP session or stateless HTTP request, all over one host.
 *
 * @param host The host.
 * @param options The session, extras, and whether the server lives on.
 * @returns The SDK server.
 */
export function createGateway(host: Host, options: GatewayOptions = {}): Server {
  const lives = options.relay !== false;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      resources: lives ? { subscribe: true, listChanged: true } : { listChanged: true },
      ...(lives ? { logging: {} } : {}),
    },
    instructions: instructions(host),
  });
  const { extras } = options;
  const served = options.extrasOnly ? undefined : host;
  const extraTools = new Set(extras?.tools.map((tool) => tool.name));
  // The descriptors' input schemas are the workers' JSON Schemas: objects, typed loosely here.
  server.setRequestHandler("tools/list", () => ({
    tools: [...((served?.list() ?? []) as unknown as Tool[]), ...(extras?.tools ?? [])],
  }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const ended = options.calls?.begin();
    try {
      if (extras && extraTools.has(name)) return await extras.call(name, args ?? {}, ctx);
      if (!served) throw new UnknownToolError(name);
      const result = toWire(
        await served.call(name, args ?? {}, callContext(served, server, request, ctx, options)),
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
  });
  serveAnchors(host, server, extras, !options.extrasOnly);
  if (lives) relayAnchors(host, server);
  extras?.install(server);
  return server;
}

/** A call's session, client, cancellation and progress, from the SDK's request context. */
function callContext(
  host: Host,
  server: Server,
  request: CallToolRequest,
  ctx: ServerContext,
  options: GatewayOptions,
): Parameters<Host["call"]>[2] {
  const token = request.params._meta?.progressToken;
  const client = server.getClientVersion();
  return {
    signal: ctx.mcpReq.signal,
    session: options.session ?? host.sessions.id,
    client: client ? `${client.name}/${client.version}` : "unknown",
    ...(request.params._meta ? { meta: request.params._meta as Record<string, unknown> } : {}),
    ...(host.approvals && server.getClientCapabilities()?.elicitation
      ? options.relay === false ? { rounds: roundsOf(ctx) } : { elicit: elicitThrough(ctx) }
      : {}),
    ...(token === undefined ? {} : {
      onProgress: (progress: number, total?: number, message?: string) => {
        void ctx.mcpReq.notify({
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

/** Directives travel in `_meta["toolhost/directives"]`; everything else is the result as it is. */
function toWire(result: ToolResult): CallToolResult {
  const { directives, ...rest } = result;
  if (!directives || directives.length === 0) return rest as CallToolResult;
  return {
    ...rest,
    _meta: { ...(rest._meta ?? {}), [DIRECTIVES_META_KEY]: directives },
  } as CallToolResult;
}

/** Context anchors (unless only extras are served) and the extras' resources: list and read. */
function serveAnchors(
  host: Host,
  server: Server,
  extras: GatewayExtras | undefined,
  anchors: boolean,
): void {
  server.setRequestHandler("resources/list", () => ({
    resources: [
      ...(anchors ? host.anchors.list() : []).map((anchor) => ({
        uri: `${ANCHOR_URI}${encodeURIComponent(anchor.key)}`,
        name: anchor.key,
        title: `Context anchor "${anchor.key}"`,
        description: `Pushed by a tool; updated ${anchor.updated_at}`,
        mimeType: "text/plain",
      })),
      ...(extras?.resources ?? []),
    ],
  }));
  server.setRequestHandler("resources/read", (request) => {
    const { uri } = request.params;
    const extra = extras?.read(uri);
    if (extra) return extra;
    if (!anchors) throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown resource "${uri}"`);
    return { contents: [{ uri, mimeType: "text/plain", text: anchorOf(host, uri).content }] };
  });
}

/**
 * Subscriptions to anchors, and the list-changed and updated notifications
 * of a connection that lives on (stdio, an HTTP session): a stateless
 * request's server has no one to notify later.
 */
function relayAnchors(host: Host, server: Server): void {
  const subscribed = new Set<string>();
  server.setRequestHandler("resources/subscribe", (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  const stop = host.anchors.onChange((anchor, created) => {
    const uri = `${ANCHOR_URI}${encodeURIComponent(anchor.key)}`;
    // Notifications to a client that is gone are moot: dropped.
    if (created) void server.sendResourceListChanged().catch(() => {});
    if (subscribed.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
  });
  // A notification to a client that is gone is moot: dropped.
  const stopTools = host.onToolsChanged(() => void server.sendToolListChanged().catch(() => {}));
  const closed = server.onclose;
  server.onclose = () => {
    stop();
    stopTools();
    closed?.();
  };
}

function anchorOf(host: Host, uri: string): { content: string } {
  const key = uri.startsWith(ANCHOR_URI)
    ? decodeURIComponent(uri.slice(ANCHOR_URI.length))
    : undefined;
  const anchor = key === undefined ? undefined : host.anchors.get(key);
  if (!anchor) throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown resource "${uri}"`);
  return anchor;
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
function protocolError(code: ProtocolErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** When it aborts (SIGTERM), calls in flight get up to `drainMs`, then the transport closes. */
  stop?: AbortSignal;
  /** The longest wait for calls in flight once `stop` aborts (default 10 s). */
  drainMs?: number;
}

/**
 * Serve a host over a transport until it closes. Over stdio (the default),
 * every message in and out goes to the host's session log.
 *
 * @param host The host.
 * @param transport The transport (stdio by default).
 * @param options When to stop, and how long calls in flight get then.
 * @returns Resolves when the transport closes.
 */
export async function serve(
  host: Host,
  transport?: Transport,
  options: ServeOptions = {},
): Promise<void> {
  const calls = new Inflight();
  const server = createGateway(host, { calls });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport ?? stdioTransport(host));
  options.stop?.addEventListener("abort", async () => {
    await calls.settled(options.drainMs ?? 10_000);
    await server.close();
  }, { once: true });
  await closed;
}
