/**
 * The files this host, or the user's MCP client, runs or obeys at the next
 * start: protected by path when they lie inside a root.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import type { ProtectedFile } from "../../security/protected.ts";
import { type PeerEntry, programFiles } from "../../sinks/peers.ts";

/** Why a configuration file is protected. */
const CONFIG = "a configuration file toolhost reads";

/** Why the user's trust list is protected. */
const TRUST = "the user's list of trusted config files";

/** Why toolhost's own directory is protected when a root holds it. */
const OWN_CODE = "toolhost's own code (it runs, unconfined, at the next start)";

/** Where the files come from. */
export interface StartedFilesInput {
  /** The config file (read or not). */
  configFile: string;
  /** The `.mcp.json` that lists efferent-copy peers. */
  mcpJson: string;
  /** Its servers, as read (the user's MCP client starts them). */
  peers: Readonly<Record<string, PeerEntry>>;
  /** The user's trust list (`trust.ts`), or null. */
  trustStore: string | null;
  /** The upstream servers that run outside the sandbox, by name, in the `.mcp.json` shape. */
  upstream: Readonly<Record<string, unknown>>;
  /** The working directory of servers without their own (the first root). */
  cwd: string;
}

/**
 * Files this host, or the user's MCP client, will run or obey at the next
 * start: its configuration and the user's trust list, the programs of the
 * upstream servers it runs outside the sandbox (the user's own), those of
 * `.mcp.json`'s servers (the user's MCP client starts them, unconfined,
 * whatever toolhost does), its own code and Deno. Protected where they lie
 * inside a root (the policy keeps those). Upstream servers named by project
 * content run in the sandbox, where a file they run or import can do no
 * more than the agent could already: theirs are not listed.
 *
 * @param input The config file, `.mcp.json`, upstream servers and working directory.
 * @returns The files, each with why it is protected.
 */
export function startedFiles(input: StartedFilesInput): ProtectedFile[] {
  const { configFile, mcpJson, upstream, cwd } = input;
  const files: ProtectedFile[] = [
    { path: configFile, why: CONFIG },
    { path: mcpJson, why: CONFIG },
    ...(input.trustStore ? [{ path: input.trustStore, why: TRUST }] : []),
    { path: fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, ""), why: OWN_CODE },
  ];
  try {
    files.push({ path: Deno.execPath(), why: "the Deno that runs toolhost" });
  } catch {
    // not visible from here, so not inside a root either
  }
  const started = (where: string) => ({ path, server }: { path: string; server: string }) => ({
    path,
    why: `a program started for "${server}" (${where})`,
  });
  files.push(...programFiles(upstream, cwd).map(started("upstream.mcpServers")));
  // Whatever toolhost does with them, the user's MCP client starts `.mcp.json`'s servers unconfined.
  files.push(...programFiles(input.peers, cwd).map(started(".mcp.json")));
  return files;
}
