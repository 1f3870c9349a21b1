/**
 * Which configured servers run in the sandbox (`host/sandbox/server.ts`).
 *
 * @module
 */

import type { HostConfig, UpstreamEntry } from "./config.ts";

/**
 * Whether a server runs in the sandbox, and with the network: every stdio
 * server of a trusted config file inside a root does; one of the user's own
 * config does when its entry asks (`"sandbox": true` or settings). A server
 * reached at a URL is not a process of ours: never.
 *
 * @param entry The server's entry.
 * @param config The configuration (where the entry comes from).
 * @returns The sandbox's settings, or null to run it as configured.
 */
export function sandboxed(entry: UpstreamEntry, config: HostConfig): { network: boolean } | null {
  if (!("command" in entry)) return null;
  if (config.trust.config.from === "user" && !entry.sandbox) return null;
  return { network: sandboxNetwork(entry) };
}

/**
 * Whether a server's entry (an upstream's, or a `.mcp.json` peer's) shares
 * the network with it in the sandbox: `"sandbox": {"network": true}`.
 *
 * @param entry The entry, in the `.mcp.json` shape.
 * @returns True when it asks for the network.
 */
export function sandboxNetwork(entry: unknown): boolean {
  const asked = (entry as { sandbox?: unknown } | null)?.sandbox;
  return typeof asked === "object" && asked !== null &&
    (asked as { network?: unknown }).network === true;
}
