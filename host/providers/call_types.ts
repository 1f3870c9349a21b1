/**
 * What the dispatcher and its providers speak: a call's context (who calls,
 * where it runs, how it is followed), the gate that may hold it, and a
 * provider of tools.
 *
 * @module
 */

import type { Policy } from "../../security/policy.ts";
import type { ToolDescriptor } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { CallOutcome, CallRecord } from "../../tools/calls.ts";
import type { WorkerPool } from "../workers/mod.ts";
import type { Verdict } from "./_held.ts";

/**
 * Where a call of a client limited to some roots runs (`host/clients/scopes.ts`): tool workers and
 * host-side services (the shell sandbox) confined to those roots.
 */
export interface CallScope {
  /** The scope's policy: its roots, its state directory. */
  readonly policy: Policy;
  /** Its tool workers. */
  readonly pool: WorkerPool;
  /** The host-side tools' services and shared values for its calls (its own sandbox). */
  readonly shared: Map<string, unknown>;
}

/** Whether a call may start: a refusal, or what to call once it ended. */
export type Admission = { refusal: ToolResult } | { release: () => void };

/** Who is calling and how the call is followed. */
export interface CallContext {
  /** Aborted when the client cancels. */
  signal?: AbortSignal;
  /** Progress for the client. */
  onProgress?: (progress: number, total?: number, message?: string) => void;
  /** The MCP session (or `cli`, `test`). */
  session: string;
  /** The client's name and version, when known. */
  client: string;
  /**
   * Where it runs, when its client is limited to some roots (default: the host's workers).
   *
   * @internal The client rights' wiring, not part of the library's API.
   */
  scope?: CallScope;
  /**
   * Whether it may start (its client's rights and limits): a refusal ends it as the gate's does,
   * logged and observed as any call; else what to call once it ended.
   *
   * @internal The client rights' wiring, not part of the library's API.
   */
  admit?: (tool: string) => Admission;
  /** The request's `_meta` (passed through to upstream servers). */
  meta?: Record<string, unknown>;
  /** Ask the client's user through MCP elicitation (when the client supports it). */
  elicit?: (
    message: string,
    schema: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<{ action: string; content?: Record<string, unknown> | undefined }>;
  /**
   * A 2026-07-28 request from a client that elicits: approvals answer with an
   * input-required round, and its retry carries the answer and signed state.
   */
  rounds?: {
    answer?: { action: string; content?: Record<string, unknown> | undefined } | undefined;
    state?: string | undefined;
  };
}

/**
 * What may hold a call before it runs (approvals): undefined lets it run as it is; a verdict runs
 * it with `args`, or answers with `refusal`. A gate that waits for a human calls `onWait` then:
 * that wait is the call's `waitedMs`, never part of its `durationMs`.
 */
export type CallGate = (
  call: CallRecord,
  ctx: CallContext & { onWait?: () => void },
) => Promise<Verdict>;

/** What a provider returns: the result and the paths it touched (and what it timed, for telemetry). */
export interface ProviderResult extends Pick<CallOutcome, "queuedMs" | "phases"> {
  /** The tool's result. */
  result: ToolResult;
  /** Paths touched, as shown to the model. */
  paths: string[];
}

/** A source of tools: the local registry (via the workers) or an upstream server. */
export interface ToolProvider {
  /** A short name for logs. */
  readonly name: string;
  /** The tools it offers now. */
  list(): ToolDescriptor[];
  /**
   * Whether it answers calls of a tool: by default, those it lists (the local
   * tools also answer a family's that waits for its language to be found).
   *
   * @param name The tool's name.
   */
  serves?(name: string): boolean;
  /**
   * Its calls read nothing the call observers keep (the tool workers' calls):
   * the observers may hear of earlier calls while it runs, not before.
   */
  readonly readsNoObservations?: boolean;
  /**
   * Run one call.
   *
   * @param name The tool's name as listed.
   * @param args Raw arguments.
   * @param ctx The call's context.
   * @throws {UnknownToolError} When it has no such tool.
   */
  call(name: string, args: unknown, ctx: CallContext): Promise<ProviderResult>;
}
