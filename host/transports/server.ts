/**
 * The gateway: the one place where MCP meets the host. It lists the
 * dispatcher's tools and runs calls concurrently, relaying cancellation,
 * progress and approvals' elicitations. The low-level SDK `Server` is used:
 * the tools are described by the workers' and upstream servers' JSON
 * Schemas, not by zod schemas registered in this process. A call runs
 * through `_call_tool.ts`, whichever route brought it: the SDK's, or over
 * stdio the direct route (`_direct.ts`) that a worker tool's plain call takes.
 *
 * @module
 */

import {
  ProtocolErrorCode,
  Server,
  type ServerNotification,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/server";
import { ANCHOR_URI } from "../state/mod.ts";
import type { Host } from "../host.ts";
import type { GatewayExtras } from "./extras.ts";
import { Inflight } from "./_inflight.ts";
import { stdioTransport } from "./_stdio_host.ts";
import { directRoute } from "./_direct.ts";
import { callToolFor, type GatewayCall, protocolError } from "./_call_tool.ts";

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
  return gatewayParts(host, options).server;
}

/**
 * The gateway's server and the function that runs a call of the host's
 * tools for it: the SDK's `tools/call` route and stdio's direct route share it.
 *
 * @param host The host.
 * @param options As for {@linkcode createGateway}.
 * @returns The SDK server (not yet connected) and the call function.
 */
export function gatewayParts(
  host: Host,
  options: GatewayOptions = {},
): { server: Server; callTool: GatewayCall } {
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
  const callTool = callToolFor(served, server, options);
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const notify = (notification: ServerNotification) => ctx.mcpReq.notify(notification);
    const means = { signal: ctx.mcpReq.signal, notify, ctx };
    if (!extras || !extraTools.has(request.params.name)) return callTool(request.params, means);
    const ended = options.calls?.begin();
    try {
      return await extras.call(request.params.name, request.params.arguments ?? {}, ctx);
    } finally {
      ended?.();
    }
  });
  serveAnchors(host, server, extras, !options.extrasOnly);
  if (lives) relayAnchors(host, server);
  extras?.install(server);
  return { server, callTool };
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
  const { server, callTool } = gatewayParts(host, { calls });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport ?? stdioTransport(host, directRoute(host, server, callTool)));
  options.stop?.addEventListener("abort", async () => {
    await calls.settled(options.drainMs ?? 10_000);
    await server.close();
  }, { once: true });
  await closed;
}
