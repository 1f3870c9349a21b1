/**
 * The shape of an upstream server entry in `toolhost.json`: the `.mcp.json`
 * shape, with toolhost's own keys (time limit, tool filters, the sandbox).
 *
 * @module
 */

import { z } from "zod";
import type { PeerEntry } from "../../sinks/peers.ts";
import { serverNameProblem } from "../../tools/tool_names.ts";

/** toolhost's own keys on an upstream server entry (beside the `.mcp.json` ones). */
const UPSTREAM_POLICY = {
  timeoutMs: z.number().int().positive().optional().describe("Per-call timeout (default 60000)"),
  allowTools: z.array(z.string()).optional().describe("Only these of its tools"),
  denyTools: z.array(z.string()).optional().describe("Never these of its tools"),
  sandbox: z.union([
    z.boolean(),
    z.object({
      network: z.boolean().optional().describe(
        "Share the host's network with it (default false: it has none)",
      ),
    }).strict(),
  ]).optional().describe(
    "Run it in the sandbox run_shell uses: the roots read-only, no network unless granted, a scrubbed environment. A server named by a config file inside a root always runs there; one in your own config outside the roots runs there when this is true or an object",
  ),
};

/** One upstream server: a process over stdio, or a URL. */
export const MCP_SERVER = z.union([
  z.object({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    ...UPSTREAM_POLICY,
  }).loose(),
  z.object({ type: z.enum(["http", "sse", "streamable-http"]), url: z.url(), ...UPSTREAM_POLICY })
    .loose(),
]);

/** Each upstream server's name must form tool names within MCP's rule (`<server>__<tool>`). */
export function serverNames(context: z.core.ParsePayload<Record<string, unknown>>): void {
  for (const name of Object.keys(context.value)) {
    const problem = serverNameProblem(name);
    if (problem !== undefined) {
      context.issues.push({ code: "custom", input: name, path: [name], message: problem });
    }
  }
}

/** What toolhost adds to an upstream server's `.mcp.json`-shaped entry. */
export interface UpstreamPolicy {
  /** Per-call timeout in milliseconds (default 60000). */
  timeoutMs?: number | undefined;
  /** Only these of its tools. */
  allowTools?: string[] | undefined;
  /** Never these of its tools. */
  denyTools?: string[] | undefined;
  /** Run it in the sandbox (`true`, or with the network shared). */
  sandbox?: boolean | { network?: boolean | undefined } | undefined;
}

/** One upstream server entry, as written in `toolhost.json` (other keys are kept). */
export type UpstreamEntry = PeerEntry & UpstreamPolicy & { [key: string]: unknown };
