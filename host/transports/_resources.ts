/**
 * The gateway's resources and the news of them: the host's context anchors
 * (listed and read beside the extras' resources), and how a client learns
 * that anchors or the tool list changed. A 2025-era connection's server
 * notifies its own client (list changes, subscribed updates); a 2026-07-28
 * server does neither, and its changes go through the SDK's entry to the
 * clients' `subscriptions/listen`.
 *
 * @module
 */

import { ProtocolErrorCode, type Server, type ServerNotifier } from "@modelcontextprotocol/server";
import { ANCHOR_URI } from "../state/mod.ts";
import type { Host } from "../host.ts";
import type { GatewayExtras } from "./extras.ts";
import { protocolError } from "./_call_tool.ts";

/**
 * Serve context anchors (unless only extras are served) and the extras'
 * resources: list and read.
 *
 * @param host The host.
 * @param server The server (not yet connected).
 * @param options The extras, and whether the host's anchors are served.
 */
export function serveAnchors(
  host: Host,
  server: Server,
  options: { extras: GatewayExtras | undefined; anchors: boolean },
): void {
  const { extras, anchors } = options;
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
 *
 * @param host The host.
 * @param server The server (not yet connected); relaying stops when it closes.
 */
export function relayAnchors(host: Host, server: Server): void {
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

/** Where a 2026-07-28 server's changes go: the SDK's entry, to the clients' `subscriptions/listen`. */
export type ChangeNotifier = Pick<
  ServerNotifier,
  "toolsChanged" | "resourcesChanged" | "resourceUpdated"
>;

/**
 * Tool-list and anchor changes to a 2026-07-28 endpoint's listeners: every
 * change, which each `subscriptions/listen` filter picks from.
 *
 * @param host The host.
 * @param notify Where they go (HTTP's handler, or a stdio connection's server).
 * @returns Stops relaying.
 */
export function relayToListeners(host: Host, notify: ChangeNotifier): () => void {
  const stopTools = host.onToolsChanged(() => notify.toolsChanged());
  const stopAnchors = host.anchors.onChange((anchor, created) => {
    if (created) notify.resourcesChanged();
    notify.resourceUpdated(`${ANCHOR_URI}${encodeURIComponent(anchor.key)}`);
  });
  return () => {
    stopTools();
    stopAnchors();
  };
}

/**
 * A server's own change notifications, which the SDK's stdio entry routes to listeners.
 *
 * @param server The server.
 * @returns Its notifier.
 */
export function notifierOf(server: Server): ChangeNotifier {
  // A notification to a client that is gone is moot: dropped.
  const drop = () => {};
  return {
    toolsChanged: () => void server.sendToolListChanged().catch(drop),
    resourcesChanged: () => void server.sendResourceListChanged().catch(drop),
    resourceUpdated: (uri) => void server.sendResourceUpdated({ uri }).catch(drop),
  };
}
