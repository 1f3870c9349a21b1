/**
 * Approvals: a call that an `approvals` rule names waits, alone (other
 * calls go on), until a human approves or denies exactly that tool with
 * exactly those arguments, through the Hook API, the dashboard or MCP
 * elicitation; unanswered, it fails with `approval_timeout`. An approval
 * is used by the one call that asked, unless the human approved the tool
 * for the session (where the rule allows it).
 *
 * @module
 */

import type { ApprovalRule } from "../config/mod.ts";
import type { ApprovalNote, CallRecord } from "../../tools/calls.ts";
import {
  argsHash,
  ELICIT_SCHEMA,
  globMatcher,
  keepClientWaiting,
  noElicit,
  reasonOf,
  refusalFor,
} from "./_approval_parts.ts";
import { inputRound, RoundStates } from "./_rounds.ts";
import { eventValue } from "./events.ts";

export { argsHash } from "./_approval_parts.ts";
import type {
  AnswerOutcome,
  ApprovalAnswer,
  ApprovalsOptions,
  Elicit,
  GateContext,
  GateVerdict,
  PendingApproval,
} from "./_approval_types.ts";

interface Waiting {
  request: PendingApproval;
  settle: (note: ApprovalNote) => void;
}

/** The approval rules in force, the calls waiting, and the session grants. */
export class Approvals {
  #rules: readonly { rule: ApprovalRule; matches: (tool: string) => string[] }[];
  #options: ApprovalsOptions;
  #now: () => Date;
  #waiting = new Map<string, Waiting>();
  #grants = new Map<string, Map<string, string>>();
  #states = new RoundStates();

  /**
   * The approval gate, with no call waiting.
   *
   * @param rules The rules (`approvals` section).
   * @param options Classes, audit, events, clock.
   */
  constructor(rules: readonly ApprovalRule[], options: ApprovalsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#rules = rules.map((rule) => {
      const globs = rule.tools.map((glob) => ({ glob, test: globMatcher(glob) }));
      return {
        rule,
        matches: (tool: string) => [
          ...globs.filter((each) => each.test(tool)).map((each) => each.glob),
          ...rule.classes.filter((name) => options.classify(tool).includes(name)),
        ],
      };
    });
  }

  /** The calls waiting now, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#waiting.values()].map((each) => each.request);
  }

  /**
   * Hold a call that a rule names until a human answers.
   *
   * @param call The call.
   * @param ctx Cancellation, progress, elicitation.
   * @returns Undefined when no rule names it; else the verdict.
   * @internal The dispatcher's gate, not part of the library's API.
   */
  async gate(call: CallRecord, ctx: GateContext): Promise<GateVerdict | undefined> {
    const found = this.#ruleFor(call.tool);
    if (found === undefined) return undefined;
    const args = structuredClone(call.args);
    const hash = await argsHash(call.tool, args);
    const granted = this.#grants.get(call.session)?.get(call.tool);
    if (granted !== undefined) {
      const approval: ApprovalNote = {
        id: granted,
        decision: "approved",
        via: "session_grant",
        scope: "session",
        args_hash: hash,
      };
      this.#audit({ tool: call.tool, args, session: call.session, client: call.client }, approval);
      return { args, approval };
    }
    const request = this.#request(call, args, hash, found);
    const { rule } = found;
    if (ctx.rounds && rule.elicitation) {
      return await this.#round(request, args, rule.timeoutMs, ctx.rounds);
    }
    const note = await this.#wait(request, rule.timeoutMs, rule.elicitation ? ctx : noElicit(ctx));
    this.#audit(request, note);
    if (note.decision === "approved") return { args, approval: note };
    return { refusal: refusalFor(note, found.rule.timeoutMs), approval: note };
  }

  /**
   * Answer a waiting call.
   *
   * @param id The approval's id.
   * @param answer Approve or deny, why, for how long, by whom.
   * @param via The channel (`hook_api`, `dashboard`, `elicitation`).
   * @returns `answered`, `unknown` (no such call waits), `mismatch` (another arguments' hash), `scope` (a session approval the rule does not allow).
   */
  answer(id: string, answer: ApprovalAnswer, via: string): AnswerOutcome {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return "unknown";
    const { request } = waiting;
    if (answer.args_hash !== undefined && answer.args_hash !== request.args_hash) return "mismatch";
    const scope = answer.approve ? answer.scope ?? "call" : undefined;
    if (scope === "session" && request.scope_allowed !== "session") return "scope";
    if (scope === "session") {
      const grants = this.#grants.get(request.session) ?? new Map<string, string>();
      grants.set(request.tool, id);
      this.#grants.set(request.session, grants);
    }
    waiting.settle({
      id,
      decision: answer.approve ? "approved" : "denied",
      via,
      ...(answer.by ? { by: answer.by.slice(0, 200) } : {}),
      ...(scope ? { scope } : {}),
      args_hash: request.args_hash,
      ...(answer.reason ? { reason: answer.reason.slice(0, 1000) } : {}),
    });
    return "answered";
  }

  /**
   * A session ended: its grants go.
   *
   * @param session The session.
   */
  endSession(session: string): void {
    this.#grants.delete(session);
  }

  /**
   * A 2026-07-28 request cannot wait for an elicitation: its first round
   * answers input_required (a signed state naming this approval), and the
   * retry's answer decides, once, for exactly these arguments.
   */
  async #round(
    request: PendingApproval,
    args: unknown,
    timeoutMs: number,
    rounds: NonNullable<GateContext["rounds"]>,
  ): Promise<GateVerdict> {
    const taken = rounds.state === undefined || rounds.answer === undefined
      ? undefined
      : await this.#states.take(rounds.state, request.tool, request.args_hash);
    if (taken === undefined) {
      const state = await this.#states.mint({
        id: request.id,
        tool: request.tool,
        hash: request.args_hash,
        exp: Date.parse(request.expires_at),
      });
      // Answered by the client's retry only: the Hook API cannot answer it.
      this.#options.onEvent?.("approval_asked", {
        ...this.#shown(request),
        via: "elicitation",
        answerable: false,
      });
      const approval = { id: request.id, decision: "asked" as const, args_hash: request.args_hash };
      return { refusal: inputRound(this.#message(request), state, timeoutMs), approval };
    }
    const answer = rounds.answer!;
    const approve = answer.action === "accept" && answer.content?.approve === true;
    const reason = reasonOf(answer);
    const note: ApprovalNote = {
      id: taken.id,
      decision: approve ? "approved" : "denied",
      via: "elicitation",
      args_hash: request.args_hash,
      ...(reason && !approve ? { reason } : {}),
    };
    this.#audit(request, note);
    this.#options.onEvent?.("approval_answered", { ...note, tool: request.tool });
    return approve
      ? { args, approval: note }
      : { refusal: refusalFor(note, timeoutMs), approval: note };
  }

  #message(request: PendingApproval): string {
    return `toolhost: allow ${request.tool} with these arguments?\n${
      JSON.stringify(this.#options.redact?.(request.args) ?? request.args, null, 2).slice(0, 4000)
    }\nSHA-256 ${request.args_hash}`;
  }

  #ruleFor(tool: string): { rule: ApprovalRule; matched: string[] } | undefined {
    for (const { rule, matches } of this.#rules) {
      const matched = matches(tool);
      if (matched.length > 0) return { rule, matched };
    }
    return undefined;
  }

  #request(
    call: CallRecord,
    args: unknown,
    hash: string,
    found: { rule: ApprovalRule; matched: string[] },
  ): PendingApproval {
    const asked = this.#now();
    return Object.freeze({
      id: crypto.randomUUID(),
      tool: call.tool,
      args,
      args_hash: hash,
      session: call.session,
      client: call.client,
      matched: found.matched,
      scope_allowed: found.rule.scope,
      asked_at: asked.toISOString(),
      expires_at: new Date(asked.getTime() + found.rule.timeoutMs).toISOString(),
    });
  }

  /** Wait for the first of: an answer, the timeout, the client's cancellation. */
  #wait(request: PendingApproval, timeoutMs: number, ctx: GateContext): Promise<ApprovalNote> {
    const stop = new AbortController();
    const base = { id: request.id, args_hash: request.args_hash };
    const decided = new Promise<ApprovalNote>((resolve) => {
      const settle = (note: ApprovalNote) => {
        if (!this.#waiting.delete(request.id)) return;
        stop.abort();
        resolve(note);
      };
      this.#waiting.set(request.id, { request, settle });
      const timer = setTimeout(() => settle({ ...base, decision: "timeout" }), timeoutMs);
      stop.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      const cancelled = () => settle({ ...base, decision: "cancelled", via: "client" });
      ctx.signal?.addEventListener("abort", cancelled, { once: true, signal: stop.signal });
      if (ctx.signal?.aborted) cancelled();
    });
    // The call shows as waiting before anyone hears it was asked.
    ctx.onWait?.();
    this.#options.onEvent?.("approval_asked", this.#shown(request));
    keepClientWaiting(request, ctx, stop.signal);
    if (ctx.elicit) this.#elicit(request, ctx.elicit, stop.signal);
    return decided.then((note) => {
      this.#options.onEvent?.("approval_answered", { ...note, tool: request.tool });
      return note;
    });
  }

  /** Ask the client's user too; the first answer from any channel counts. */
  #elicit(request: PendingApproval, elicit: Elicit, signal: AbortSignal): void {
    elicit(this.#message(request), ELICIT_SCHEMA, signal).then((result) => {
      const approve = result.action === "accept" && result.content?.approve === true;
      const reason = reasonOf(result);
      this.answer(request.id, { approve, ...(reason ? { reason } : {}) }, "elicitation");
    }, () => {
      // The client failed to ask (or the wait ended first): the other channels still can.
    });
  }

  /** An approval as events show it: arguments redacted and capped (the full ones are at `GET /api/approvals`). */
  #shown(request: PendingApproval): Record<string, unknown> {
    return { ...request, args: eventValue(this.#options.redact?.(request.args) ?? request.args) };
  }

  #audit(
    request: Pick<PendingApproval, "tool" | "args" | "session" | "client"> & { asked_at?: string },
    note: ApprovalNote,
  ): void {
    this.#options.audit({
      ts: this.#now().toISOString(),
      ...note,
      tool: request.tool,
      args: this.#options.redact?.(request.args) ?? request.args,
      session: request.session,
      client: request.client,
      ...(request.asked_at ? { asked_at: request.asked_at } : {}),
    });
  }
}
