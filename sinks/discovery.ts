/**
 * Sink discovery (seed 000): every peer in `.mcp.json` — stdio, SSE or
 * Streamable HTTP — whose `observe` tool accepts `{tool_name: string, args:
 * object}` is a sink. This host itself (same entry script, or a wrapper
 * script carrying the `toolhost-self-ref-target:` marker) never is.
 *
 * This module loads the MCP client code, which reads the environment when it
 * loads: import it only when efferent copy is enabled.
 *
 * @module
 */

import { Client, type Tool as McpTool } from "@modelcontextprotocol/client";
import {
  DISCOVERY_TIMEOUT_MS,
  type ObserveChannel,
  PeerSink,
  type RejectedPeer,
} from "./efferent.ts";
import { clientTransport, type Launcher } from "./mcp_transport.ts";
import { isSelfReference, type PeerEntry, readMcpJson } from "./peers.ts";
import type { SubprocessLog } from "../tools/sandbox.ts";

/** Options for {@linkcode discoverSinks}. */
export interface DiscoveryOptions {
  /** The `.mcp.json` to read. */
  mcpJson: string;
  /** Its peers, when the caller read them already (judged as they were read). */
  peers?: Readonly<Record<string, PeerEntry>>;
  /** This host's entry scripts (real paths), for the self-reference defence. */
  selfEntry: string | readonly string[];
  /** The working directory for stdio peers without their own. */
  cwd: string;
  /** Per-peer timeout (default 5 s). */
  timeoutMs?: number;
  /** Each sink's observe timeout (default 250 ms, `OBSERVE_TIMEOUT_MS` in `efferent.ts`). */
  observeTimeoutMs?: number;
  /** Where warnings go. */
  warn: (message: string) => void;
  /** Where the peers started as processes are recorded when they end (the session log). */
  subprocesses?: SubprocessLog;
  /** What starts each peer's process instead of its own command line (the sandbox), if any. */
  launcher?: (entry: PeerEntry) => Launcher;
}

/** What discovery found: the sinks, and the peers that are not, with why. */
export interface Discovered {
  /** The sinks (connected). */
  sinks: PeerSink[];
  /** Peers that are not sinks (this host itself is not listed here). */
  rejected: RejectedPeer[];
}

/**
 * Find the sinks, probing every peer in parallel, each within the timeout.
 *
 * @param options Where to look.
 * @returns The sinks, and the peers that are not sinks with why.
 */
export async function discoverSinks(options: DiscoveryOptions): Promise<Discovered> {
  const peers = options.peers ?? await readMcpJson(options.mcpJson);
  const rejected: RejectedPeer[] = [];
  const found = await Promise.all(
    Object.entries(peers).map(async ([name, entry]) => {
      if (await isSelfReference(entry, options.selfEntry)) return undefined;
      const connect = () => connectObserve(name, entry, options);
      try {
        return new PeerSink(name, await connect(), connect, options.warn, options.observeTimeoutMs);
      } catch (error) {
        rejected.push({ name, reason: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    }),
  );
  return { sinks: found.filter((sink): sink is PeerSink => sink !== undefined), rejected };
}

/** Connect to a peer (within the timeout) and check that its `observe` tool has the sink shape. */
async function connectObserve(
  name: string,
  entry: PeerEntry,
  options: DiscoveryOptions,
): Promise<ObserveChannel> {
  const client = new Client({ name: "toolhost-efferent-copy", version: "0.1.0" });
  const ms = options.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    const log = options.subprocesses;
    const recorded = log ? { log, tool: `sink:${name}` } : undefined;
    const launcher = options.launcher?.(entry);
    const transport = clientTransport(entry, options.cwd, "ignore", recorded, launcher);
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await Promise.race([client.listTools(), timeout]);
    const observe = (tools as McpTool[]).find((tool) => tool.name === "observe");
    const properties = observe?.inputSchema.properties as
      | Record<string, { type?: unknown }>
      | undefined;
    if (
      !observe || properties?.tool_name?.type !== "string" || properties?.args?.type !== "object"
    ) {
      throw new Error("it has no observe(tool_name: string, args: object) tool");
    }
  } catch (error) {
    await client.close().catch(() => {
      // Not a sink, or not reachable: a client that fails to close is gone already.
    });
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    async observe(payload, meta, timeoutMs) {
      await client.callTool({ name: "observe", arguments: payload, _meta: meta }, {
        timeout: timeoutMs,
      });
    },
    close: () => client.close(),
  };
}
