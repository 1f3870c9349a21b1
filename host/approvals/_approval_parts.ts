/**
 * Small parts of approvals: the arguments' hash shown to the human,
 * tool-name globs, the elicitation's form, progress while a call waits, and
 * the refusals.
 *
 * @module
 */

import type { ApprovalNote } from "../../tools/calls.ts";
import type { ToolResult } from "../../tools/tool.ts";

/** How often a waiting call tells its client it still waits. */
const PROGRESS_EVERY_MS = 15_000;

/**
 * The SHA-256 of a tool and its arguments, as JSON with keys sorted at
 * every depth: the same call gives the same hash whatever the key order.
 *
 * @param tool The tool.
 * @param args Its arguments.
 * @returns 64 hex digits.
 */
export async function argsHash(tool: string, args: unknown): Promise<string> {
  const text = JSON.stringify([tool, sorted(args)]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, each]) => [key, sorted(each)]));
}

/**
 * A tool-name glob: `*` any run of characters, `?` one, the rest literal.
 *
 * @param glob The glob (`fs__*`).
 * @returns Whether a name matches it whole.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const pattern = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")
    .replaceAll("?", ".");
  const regex = new RegExp(`^${pattern}$`);
  return (name) => regex.test(name);
}

/** The form an elicitation shows: approve or not, and why. */
export const ELICIT_SCHEMA = {
  type: "object",
  properties: {
    approve: { type: "boolean", title: "Approve this call", default: false },
    reason: { type: "string", title: "Reason (told to the agent on a denial)" },
  },
  required: ["approve"],
};

/** Tell a client with a progress token, now and every little while, that the call waits for a human. */
export function keepClientWaiting(
  request: { readonly id: string; readonly tool: string },
  ctx: { onProgress?: ((progress: number, total?: number, message?: string) => void) | undefined },
  stop: AbortSignal,
): void {
  if (!ctx.onProgress || stop.aborted) return;
  const say = () =>
    ctx.onProgress?.(
      0,
      undefined,
      `waiting for a human to approve ${request.tool} (${request.id})`,
    );
  say();
  const timer = setInterval(say, PROGRESS_EVERY_MS);
  stop.addEventListener("abort", () => clearInterval(timer), { once: true });
}

/** The result a refused call gets: a stable code and what happened. */
export function refusalFor(note: ApprovalNote, timeoutMs: number): ToolResult {
  const text = note.decision === "timeout"
    ? `approval_timeout: no one approved this call within ${
      Math.round(timeoutMs / 1000)
    } s; nothing was done`
    : note.decision === "cancelled"
    ? "cancelled: the call was cancelled while it waited for approval; nothing was done"
    : `approval_denied: ${note.reason ?? "denied without a reason"}; nothing was done`;
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * The reason an elicitation's answer gives: the user's words on an
 * accepted form, else what they chose (decline, cancel).
 *
 * @param result The elicitation's result.
 * @returns The reason, or undefined.
 */
export function reasonOf(
  result: { action: string; content?: Record<string, unknown> | undefined },
): string | undefined {
  if (result.action !== "accept") return `the user chose ${result.action}`;
  return String(result.content?.reason ?? "") || undefined;
}

/**
 * A waiting call's context without its elicitation (a rule whose approvals
 * only the dashboard and the Hook API give).
 *
 * @param ctx The context.
 * @returns The same, without `elicit`.
 */
export function noElicit<T extends { elicit?: unknown }>(ctx: T): Omit<T, "elicit"> {
  const { elicit: _, ...rest } = ctx;
  return rest;
}
