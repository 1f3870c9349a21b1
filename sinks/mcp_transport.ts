/**
 * The client transport to an MCP server in the `.mcp.json` shape: a process
 * over stdio, or Streamable HTTP or SSE at a URL. Efferent-copy peers and
 * upstream servers are both reached this way.
 *
 * @module
 */

import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { PeerEntry } from "./peers.ts";
import { type RecordedAs, RecordedProcess } from "./_recorded_process.ts";

export type { RecordedAs } from "./_recorded_process.ts";

/** How a stdio server is started: the program, its arguments, environment and working directory. */
export interface Launch {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Its environment (added to the SDK's inherited default set). */
  env: Record<string, string>;
  /** Where it starts. */
  cwd: string;
}

/**
 * Turns a server's own command line into the one that starts it: the host
 * passes one that wraps it in the sandbox (`host/sandbox/server.ts`).
 */
export type Launcher = (launch: Launch) => Launch;

/**
 * A transport to a server.
 *
 * @param entry The server, as `.mcp.json` lists it.
 * @param cwd Where a process starts when the entry names no `cwd`.
 * @param stderr What becomes of a process's stderr.
 * @param recorded Where a process is recorded when it ends, and as what (the session log).
 * @param launcher What starts a process instead of its own command line (the sandbox), if any.
 * @returns The transport, not yet started.
 */
export function clientTransport(
  entry: PeerEntry,
  cwd: string,
  stderr: "pipe" | "ignore",
  recorded?: RecordedAs,
  launcher?: Launcher,
): Transport {
  if ("url" in entry) {
    const url = new URL(entry.url);
    return entry.type === "sse"
      ? new SSEClientTransport(url)
      : new StreamableHTTPClientTransport(url);
  }
  const started = { argv: [entry.command, ...(entry.args ?? [])], cwd: entry.cwd ?? cwd };
  const own = {
    command: entry.command,
    args: entry.args ?? [],
    env: { ...(entry.env ?? {}) },
    cwd: started.cwd,
  };
  const launch = launcher
    ? launcher(own)
    : { ...own, env: { ...inheritedEnvironment(), ...own.env } };
  const transport = new StdioClientTransport({ ...launch, stderr });
  if (!recorded) return transport;
  const confinement = launcher ? "bwrap" : "unconfined";
  return new RecordedProcess(transport, { ...started, confinement }, recorded);
}

/** The SDK's default inherited environment, or none when the process may not read it. */
function inheritedEnvironment(): Record<string, string> {
  try {
    return getDefaultEnvironment();
  } catch {
    // The process may not read the environment: the server starts with only its own.
    return {};
  }
}
