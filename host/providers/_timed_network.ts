/**
 * The network as one host-side call sees it: each fetch and search is timed
 * for the call's span (telemetry's child span), with the host asked and the
 * status — never the URL's path or query, nor a search's words.
 *
 * @module
 */

import type { CallPhase } from "../../tools/calls.ts";
import type { Network } from "../../tools/network.ts";
import { ToolError } from "../../security/errors.ts";

/**
 * A network that notes each of its requests in `phases`.
 *
 * @param network The host's network.
 * @param phases Where the call's timed parts go.
 * @returns The same network, timed.
 */
export function timedNetwork(network: Network, phases: CallPhase[]): Network {
  return {
    status: network.status,
    fetchPage: async (request) => {
      const start = now();
      const target = addressOf(request.url);
      try {
        const page = await network.fetchPage(request);
        const status = { "http.response.status_code": page.status };
        phases.push({
          name: "toolhost.net.fetch",
          start,
          end: now(),
          attributes: { ...target, ...status },
        });
        return page;
      } catch (error) {
        phases.push({
          name: "toolhost.net.fetch",
          start,
          end: now(),
          attributes: { ...target, ...failed(error) },
        });
        throw error;
      }
    },
    search: async (request) => {
      const start = now();
      try {
        const hits = await network.search(request);
        phases.push({
          name: "toolhost.net.search",
          start,
          end: now(),
          attributes: { "toolhost.results": hits.length },
        });
        return hits;
      } catch (error) {
        phases.push({ name: "toolhost.net.search", start, end: now(), attributes: failed(error) });
        throw error;
      }
    },
  };
}

/** The time, in milliseconds since the epoch, with a fraction. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

/** The host and scheme a URL names (nothing of its path, query or credentials). */
function addressOf(url: string): Record<string, string> {
  try {
    const parsed = new URL(url);
    return { "server.address": parsed.hostname, "url.scheme": parsed.protocol.replace(/:$/, "") };
  } catch {
    return {};
  }
}

/** A failure's kind: the tool error's code. */
function failed(error: unknown): Record<string, string> {
  return { "error.type": error instanceof ToolError ? error.code : "internal_error" };
}
