/**
 * The gateway: the one place where MCP meets the host. It lists the
 * dispatcher's tools and runs calls concurrently, relaying cancellation,
 * progress and approvals' elicitations. The low-level SDK `Server` is used:
 * the tools are described by the workers' and upstream servers' JSON
 * Schemas, not by zod schemas registered in this process. A call runs
 * through `_call_tool.ts`, whichever route brought it: the SDK's, or over
 * stdio the direct route (`_direct.ts`) that a worker tool's plain call takes.
 * The context anchors it serves as resources, and the news of changes to
 * them and to the tool list, are `_resources.ts`'s.
 *
 * @module
 */

import { Server, type ServerNotification, type Tool } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Host } from "../host.ts";
import type { GatewayExtras, MessageTransport } from "./extras.ts";
import { type ClientAccess, refusalOf } from "../clients/mod.ts";
import { Inflight } from "./_inflight.ts";
import { stdioTransport } from "./_stdio_host.ts";
import { directRoute, type LaterRoute, laterRoute } from "./_direct.ts";
import { callToolFor, type GatewayCall } from "./_call_tool.ts";
import { notifierOf, relayAnchors, relayToListeners, serveAnchors } from "./_resources.ts";

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: "toolhost", version: "0.1.0" } as const;

/**
 * The instructions the model reads when it connects.
 *
 * @param host The host.
 * @param client The client, when its rights name some roots: the instructions name those.
 * @returns The text.
 */
export function instructions(host: Host, client?: ClientAccess): string {
  const roots = (client?.rights.roots ?? host.policy.roots).map((root, i) =>
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
   * Whether the server relays list changes and subscribed updates itself
   * (default: yes), as a 2025-era connection's does. A 2026-07-28 server
   * does not, and declares neither logging nor subscriptions, which that
   * revision moved elsewhere: its changes reach `subscriptions/listen`
   * through {@linkcode relayToListeners}.
   */
  relay?: boolean;
  /** Counts calls in flight (a shutdown waits for them). */
  calls?: Inflight;
  /**
   * The client whose token opened the connection: it lists and calls only what its rights allow
   * (none: every right, stdio's and the one token's).
   */
  client?: ClientAccess;
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
    instructions: instructions(host, options.client),
  });
  const { extras } = options;
  const served = options.extrasOnly ? undefined : host;
  const extraTools = new Set(extras?.tools.map((tool) => tool.name));
  // The descriptors' input schemas are the workers' JSON Schemas: objects, typed loosely here.
  const { client } = options;
  const listed = () => served?.list() ?? [];
  // A client sees only what it may call (the call is refused all the same: `_call_tool.ts`).
  const visible = client && served
    ? () =>
      listed().filter((tool) =>
        refusalOf(client.rights, tool.name, served.toolFacts(tool.name)) === null
      )
    : listed;
  server.setRequestHandler("tools/list", () => ({
    tools: [...(visible() as unknown as Tool[]), ...(extras?.tools ?? [])],
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
  // Anchors are what tools pushed for every client: one limited to some roots sees none.
  const anchors = !options.extrasOnly && !client?.rights.roots;
  serveAnchors(host, server, { extras, anchors });
  if (lives) relayAnchors(host, server);
  extras?.install(server);
  return { server, callTool };
}

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** When it aborts (SIGTERM), calls in flight get up to `drainMs`, then the transport closes. */
  stop?: AbortSignal;
  /** The longest wait for calls in flight once `stop` aborts (default 10 s). */
  drainMs?: number;
}

/**
 * Serve a host over a transport until it closes, both revisions as over
 * HTTP: the client's first message names the connection's era (the SDK's
 * `serveStdio`), a 2025-era `initialize` or a 2026-07-28 request (its
 * `server/discover` or any other, each with its revision in `_meta`). Over
 * stdio (the default), every message in and out goes to the host's session
 * log, and what HTTP refuses before a server sees it is refused the same
 * way (`_stdio_gate.ts`).
 *
 * @param host The host.
 * @param transport The transport (stdio by default).
 * @param options When to stop, and how long calls in flight get then.
 * @returns Resolves when the transport closes.
 */
export async function serve(
  host: Host,
  transport?: MessageTransport,
  options: ServeOptions = {},
): Promise<void> {
  const calls = new Inflight();
  const later = laterRoute();
  const wire = transport ?? stdioTransport(host, later.route);
  const connection = serveStdio(({ era }) => stdioGateway(host, era, { calls, later }), {
    transport: wire,
    onerror: (error) => host.logger.log("warn", `stdio: ${error.message}`),
  });
  // `serveStdio` has set the transport's handlers and started it; it reads in the background.
  const closed = new Promise<void>((resolve) => {
    const close = wire.onclose;
    wire.onclose = () => {
      close?.();
      resolve();
    };
  });
  options.stop?.addEventListener("abort", async () => {
    await calls.settled(options.drainMs ?? 10_000);
    await connection.close();
  }, { once: true });
  await closed;
}

/**
 * A stdio connection's server, for the era its client's first message
 * names: a 2025-era one, whose plain calls of worker tools the direct route
 * takes; or a 2026-07-28 one, made as HTTP makes one per request but living
 * on with the connection, its changes routed by the SDK's entry to the
 * client's `subscriptions/listen`.
 */
function stdioGateway(
  host: Host,
  era: "legacy" | "modern",
  parts: { calls: Inflight; later: LaterRoute },
): Server {
  if (era === "modern") {
    const { server } = gatewayParts(host, { calls: parts.calls, relay: false });
    const stop = relayToListeners(host, notifierOf(server));
    const closed = server.onclose;
    server.onclose = () => {
      stop();
      closed?.();
    };
    return server;
  }
  const { server, callTool } = gatewayParts(host, { calls: parts.calls });
  parts.later.bind(directRoute(host, server, callTool));
  return server;
}
