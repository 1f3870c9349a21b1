/**
 * A call held at the dispatcher's gate (approvals): the verdict, and the
 * call's wait for a human timed apart from its own time, the observers told
 * when that wait begins and when the call, approved, runs. A gate that
 * throws refuses the call: it never runs unapproved.
 *
 * @module
 */

import type { ApprovalNote } from "../../tools/calls.ts";
import type { ToolResult } from "../../tools/tool.ts";

/** What a gate says of a call: undefined lets it run as it is. */
export type Verdict = { refusal?: ToolResult; args?: unknown; approval: ApprovalNote } | undefined;

/** What {@linkcode holdCall} holds a call with. */
export interface HoldParts {
  /** The gate, given what it calls when it begins to wait for a human. */
  gate: (onWait: () => void) => Promise<Verdict>;
  /** Tell the observers the call waits (`true`), or was approved and runs (`false`). */
  waiting: (waiting: boolean) => void;
  /** Where a gate's exception is reported. */
  onError: (error: unknown) => void;
}

/**
 * Hold a call at the gate.
 *
 * @param tool The call's tool (named in a refusal).
 * @param parts The gate, the observers, where errors go.
 * @returns The verdict, and how long the call waited for a human when it did.
 */
export async function holdCall(
  tool: string,
  parts: HoldParts,
): Promise<{ verdict: Verdict; waitedMs?: number }> {
  let waitedFrom: number | undefined;
  const onWait = () => {
    if (waitedFrom !== undefined) return;
    waitedFrom = performance.now();
    parts.waiting(true);
  };
  let verdict: Verdict;
  try {
    verdict = await parts.gate(onWait);
  } catch (error) {
    parts.onError(error);
    verdict = {
      refusal: internalError(tool),
      approval: { id: "", decision: "denied", reason: "the approval failed", args_hash: "" },
    };
  }
  if (waitedFrom === undefined) return { verdict };
  const waitedMs = performance.now() - waitedFrom;
  // Approved, it runs now; refused, the observers' `after` tells how it ended.
  if (!verdict?.refusal) parts.waiting(false);
  return { verdict, waitedMs };
}

/**
 * What the client gets when a call failed unexpectedly: no internals.
 *
 * @param name The tool.
 * @returns The result.
 */
export function internalError(name: string): ToolResult {
  return {
    content: [{
      type: "text",
      text: `internal_error: ${name} failed unexpectedly; the details are in the host's log`,
    }],
    isError: true,
  };
}
