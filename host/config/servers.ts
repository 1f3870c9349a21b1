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
  const asked = entry.sandbox;
  if (config.trust.config.from === "user" && !asked) return null;
  return { network: typeof asked === "object" && asked.network === true };
}
