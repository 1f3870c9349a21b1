/**
 * The gateway: the one place where MCP meets the host. It lists the
 * dispatcher's tools and runs calls concurrently, relaying cancellation and
 * progress.
 *
 * The low-level SDK `Server` is used rather than `McpServer`: the tools here
 * are described by JSON Schema that comes from the tool workers (and, later,
 * from upstream servers), not by zod schemas registered in this process.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { UnknownToolError } from "../../tools/registry.ts";
import { DIRECTIVES_META_KEY } from "../../tools/directives.ts";
import type { ToolResult } from "../../tools/tool.ts";
import { ANCHOR_URI } from "../state/mod.ts";
import type { Host } from "../host.ts";
import { LineTransport } from "./stdio.ts";

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

/**
 * Make the MCP server for a host (not yet connected).
 *
 * @param host The host.
 * @returns The SDK server.
 */
export function createGateway(host: Host): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
    },
    instructions: instructions(host),
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ) => {
    const { name, arguments: args } = request.params;
    const token = request.params._meta?.progressToken;
    const client = server.getClientVersion();
    try {
      const result = await host.call(name, args ?? {}, {
        signal: extra.signal,
        session: extra.sessionId ?? host.sessions.id,
        client: client ? `${client.name}/${client.version}` : "unknown",
        ...(request.params._meta ? { meta: request.params._meta as Record<string, unknown> } : {}),
        ...(token === undefined ? {} : {
          onProgress: (progress: number, total?: number, message?: string) => {
            void extra.sendNotification({
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
      });
      return toWire(result);
    } catch (error) {
      if (error instanceof UnknownToolError) {
        throw protocolError(ErrorCode.InvalidParams, error.message);
      }
      throw error;
    }
  });
  serveAnchors(host, server);
  // A notification to a client that is gone is moot: dropped.
  const stopRelay = host.onToolsChanged(() => void server.sendToolListChanged().catch(() => {}));
  const closed = server.onclose;
  server.onclose = () => {
    stopRelay();
    closed?.();
  };
  return server;
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

/** Context anchors as resources: list, read, subscribe (updates are notified). */
function serveAnchors(host: Host, server: Server): void {
  const subscribed = new Set<string>();
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: host.anchors.list().map((anchor) => ({
      uri: `${ANCHOR_URI}${encodeURIComponent(anchor.key)}`,
      name: anchor.key,
      title: `Context anchor "${anchor.key}"`,
      description: `Pushed by a tool; updated ${anchor.updated_at}`,
      mimeType: "text/plain",
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request: { params: { uri: string } }) => {
    const anchor = anchorOf(host, request.params.uri);
    return {
      contents: [{ uri: request.params.uri, mimeType: "text/plain", text: anchor.content }],
    };
  });
  server.setRequestHandler(SubscribeRequestSchema, (request: { params: { uri: string } }) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request: { params: { uri: string } }) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  const stop = host.anchors.onChange((anchor, created) => {
    const uri = `${ANCHOR_URI}${encodeURIComponent(anchor.key)}`;
    // Notifications to a client that is gone are moot: dropped.
    if (created) void server.sendResourceListChanged().catch(() => {});
    if (subscribed.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
  });
  const closed = server.onclose;
  server.onclose = () => {
    stop();
    closed?.();
  };
}

function anchorOf(host: Host, uri: string): { content: string } {
  const key = uri.startsWith(ANCHOR_URI)
    ? decodeURIComponent(uri.slice(ANCHOR_URI.length))
    : undefined;
  const anchor = key === undefined ? undefined : host.anchors.get(key);
  if (!anchor) throw protocolError(ErrorCode.InvalidParams, `Unknown resource "${uri}"`);
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
function protocolError(code: ErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/**
 * Serve a host over a transport until it closes. Over stdio (the default),
 * every message in and out goes to the host's session log.
 *
 * @param host The host.
 * @param transport The transport (stdio by default).
 * @returns Resolves when the transport closes.
 */
export async function serve(host: Host, transport?: Transport): Promise<void> {
  const server = createGateway(host);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  if (transport !== undefined) {
    await server.connect(transport);
  } else {
    await server.connect(
      new LineTransport({
        maxMessageBytes: host.policy.limits.maxRequestBytes,
        endGraceMs: host.config.callTimeoutMs,
        onRefused: (why) => {
          host.logger.log("warn", why);
          host.sessions.refused(why);
        },
        onTraffic: (direction, message) => host.sessions.comms(direction, message),
      }),
    );
  }
  await closed;
}
