/**
 * MCP over stdio for a host: bounded, every message in the session log,
 * what HTTP refuses before a server sees it refused the same way
 * (`_stdio_gate.ts`), and replies written as `_stdout.ts` says
 * (synchronously only when the pipe takes them at once, through the libc
 * that Landlock would use).
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/server";
import { findLibc } from "../../security/landlock.ts";
import type { Host } from "../host.ts";
import { stdoutWriter } from "./_stdout.ts";
import { LineTransport } from "./stdio.ts";
import type { DirectRoute } from "./_direct.ts";
import { SessionGate } from "./_stdio_gate.ts";

/**
 * The stdio transport a host serves on.
 *
 * @param host The host.
 * @param direct The route that answers a worker tool's plain call without the SDK.
 * @returns The transport.
 */
export function stdioTransport(host: Host, direct?: DirectRoute): Transport {
  return new LineTransport({
    ...(direct ? { direct } : {}),
    gate: new SessionGate(),
    output: stdoutWriter(host.config.landlock ? findLibc() : null),
    maxMessageBytes: host.policy.limits.maxRequestBytes,
    endGraceMs: host.config.callTimeoutMs,
    onRefused: (why) => {
      host.logger.log("warn", why);
      host.sessions.refused(why);
    },
    onTraffic: (direction, message) => host.sessions.comms(direction, message),
  });
}
