/**
 * Approvals' questions as MCP elicitations to the client that made the call:
 * a request to the client on the 2025 revisions, an input-required round
 * trip on 2026-07-28.
 *
 * @module
 */

import {
  type CallToolResult,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { CallContext } from "../providers/mod.ts";
import { APPROVAL_INPUT_KEY, INPUT_REQUIRED_META, type InputRound } from "../approvals/mod.ts";

/**
 * An approval's question as an MCP elicitation (form mode) to the client
 * that made the call: its user answers it like the Hook API's human.
 */
export function elicitThrough(ctx: ServerContext): NonNullable<CallContext["elicit"]> {
  return async (message, schema, signal) => {
    const result = await ctx.mcpReq.elicitInput(
      { mode: "form", message, requestedSchema: schema as never },
      // The approval's own time limit bounds the wait, not the SDK's 60 s default. On the call's
      // own stream: without `relatedRequestId` the SDK sends it on the standalone GET stream over
      // HTTP, and drops it when the client has not opened that stream yet (the call then waits
      // for an answer that cannot come).
      { signal, timeout: 24 * 3600 * 1000, relatedRequestId: ctx.mcpReq.id },
    );
    return {
      action: result.action,
      content: result.content as Record<string, unknown> | undefined,
    };
  };
}

/**
 * What a 2026-07-28 request's retry carries for an approval: the user's
 * answer and the round's state (both untrusted: the approvals check the
 * state's signature, tool, hash, expiry and single use).
 *
 * @param ctx The request's context.
 * @returns The rounds for the call's context.
 */
export function roundsOf(ctx: ServerContext): NonNullable<CallContext["rounds"]> {
  const view = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
  const state = ctx.mcpReq.requestState<unknown>();
  return {
    answer: view.kind === "elicit" ? { action: view.action, content: view.content } : undefined,
    state: typeof state === "string" ? state : undefined,
  };
}

/**
 * The input-required result a call's reply stands for, when its approval
 * asked the client's user (2026-07-28), else undefined.
 *
 * @param result The call's wire result.
 * @returns The input-required result, or undefined.
 */
export function asInputRequired(result: CallToolResult): InputRequiredResult | undefined {
  const round = result._meta?.[INPUT_REQUIRED_META] as InputRound | undefined;
  if (round === undefined) return undefined;
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT_KEY]: inputRequired.elicit({
        message: round.message,
        requestedSchema: round.schema as never,
      }),
    },
    requestState: round.state,
  });
}
