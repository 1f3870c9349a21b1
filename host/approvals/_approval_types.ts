/**
 * The values approvals deal in: a waiting call, a human's answer, the
 * gate's verdict and what a waiting call may use.
 *
 * @module
 */

import type { ApprovalClass } from "../config/mod.ts";
import type { ApprovalNote } from "../../tools/calls.ts";
import type { ToolResult } from "../../tools/tool.ts";

/** A call waiting for a human. */
export interface PendingApproval {
  /** Its id (answer it at `POST /api/approvals/<id>`). */
  readonly id: string;
  /** The tool. */
  readonly tool: string;
  /** The exact arguments the call runs with when approved. */
  readonly args: unknown;
  /** SHA-256 of the tool and arguments (hex). */
  readonly args_hash: string;
  /** The session and client that called. */
  readonly session: string;
  /** The client's name/version. */
  readonly client: string;
  /** The classes that matched, and the tool globs. */
  readonly matched: readonly string[];
  /** The widest approval the human may give. */
  readonly scope_allowed: "call" | "session";
  /** When it was asked and when it times out (UTC ISO). */
  readonly asked_at: string;
  /** When it times out. */
  readonly expires_at: string;
}

/** A human's answer. */
export interface ApprovalAnswer {
  /** Approve (true) or deny (false). */
  approve: boolean;
  /** Why (said to the agent on a denial). */
  reason?: string;
  /** `session`: approve the tool for the rest of the session (where the rule allows). */
  scope?: "call" | "session";
  /** Who answers (a name the human gives). */
  by?: string;
  /** When given, the arguments' hash the human saw: a different one is refused. */
  args_hash?: string;
}

/** What answering did: `answered`, or why not. */
export type AnswerOutcome = "answered" | "unknown" | "mismatch" | "scope";

/** What the gate lets through, or the refusal, with the decision for the log. */
export interface GateVerdict {
  /** The refusal the client gets instead of running the tool. */
  refusal?: ToolResult;
  /** The arguments to run with: a copy made when the human was asked. */
  args?: unknown;
  /** The decision. */
  approval: ApprovalNote;
}

/** What a waiting call may use: cancellation, progress, and an elicitation to its client. */
export interface GateContext {
  /** Aborted when the client cancels. */
  signal?: AbortSignal | undefined;
  /** Progress for the client while it waits. */
  onProgress?: ((progress: number, total?: number, message?: string) => void) | undefined;
  /** Ask the client's user (MCP elicitation), when the client supports it. */
  elicit?: Elicit | undefined;
  /** Told when the call begins to wait for a human (not for a session grant or an input-required round). */
  onWait?: (() => void) | undefined;
  /**
   * A 2026-07-28 request from a client that elicits: the gate answers with
   * an input-required round instead of waiting, and a retry carries the
   * user's answer and the round's signed state.
   */
  rounds?: {
    /** The user's answer the retry carries. */
    answer?: { action: string; content?: Record<string, unknown> | undefined } | undefined;
    /** The signed state the retry carries. */
    state?: string | undefined;
  } | undefined;
}

/** An MCP elicitation: a form with a message and a schema, its answer. */
export type Elicit = (
  message: string,
  schema: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<{ action: string; content?: Record<string, unknown> | undefined }>;

/** Options for {@linkcode Approvals}. */
export interface ApprovalsOptions {
  /** A tool's classes (write, exec, net, upstream). */
  classify: (tool: string) => readonly ApprovalClass[];
  /** Every decision, for the audit file. */
  audit: (line: Record<string, unknown>) => void;
  /** An approval asked or answered (the Hook API's events). */
  onEvent?: (type: "approval_asked" | "approval_answered", data: Record<string, unknown>) => void;
  /** Arguments as shown in events and the audit (secrets redacted). */
  redact?: (args: unknown) => unknown;
  /** The clock. */
  now?: () => Date;
}
