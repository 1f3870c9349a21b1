/**
 * Approvals' questions as MCP elicitations to the client that made the call.
 *
 * @module
 */

import type { ServerContext } from "@modelcontextprotocol/server";
import type { CallContext } from "../providers/mod.ts";

/**
 * An approval's question as an MCP elicitation (form mode) to the client
 * that made the call: its user answers it like the Hook API's human.
 */
export function elicitThrough(ctx: ServerContext): NonNullable<CallContext["elicit"]> {
  return async (message, schema, signal) => {
    const result = await ctx.mcpReq.elicitInput(
      { mode: "form", message, requestedSchema: schema as never },
      // The approval's own time limit bounds the wait, not the SDK's 60 s default.
      { signal, timeout: 24 * 3600 * 1000 },
    );
    return {
      action: result.action,
      content: result.content as Record<string, unknown> | undefined,
    };
  };
}
