/**
 * `POST /api/project` (seed 001's replaced the whole project; here a human
 * may only tighten the running host): switch tools off, and add approval
 * rules. Both last until the host stops; a config file keeps them for good.
 * Every change, and every call a switched-off tool refused, is appended to
 * the approvals' audit file (`approvals.jsonl`). The calls are held by a
 * gate the dispatcher takes at the first change (before that, nothing is
 * added to a call's path); a rule added here is answered from the
 * dashboard or the Hook API only (no elicitation: the human who added it
 * watches there).
 *
 * @module
 */

import { Redactor } from "../../sinks/redact.ts";
import type { ApprovalNote, CallRecord } from "../../tools/calls.ts";
import type { ToolResult } from "../../tools/tool.ts";
import {
  type AnswerOutcome,
  type ApprovalAnswer,
  Approvals,
  argsHash,
  AuditFile,
  type GateContext,
  type GateVerdict,
  type PendingApproval,
} from "../approvals/mod.ts";
import type { ApprovalClass, ApprovalRule } from "../config/mod.ts";
import type { Host } from "../host.ts";
import { classesOf } from "../_approval_wiring.ts";
import { UPSTREAM_SEPARATOR } from "../../tools/tool_names.ts";
import { type ChangeRequest, parseChange } from "./_change.ts";

/** A tool switched off, and by whom. */
export interface DisabledTool {
  /** The tool. */
  tool: string;
  /** When (UTC ISO). */
  at: string;
  /** The name the human gave. */
  by?: string;
  /** Why, as the human said. */
  reason?: string;
}

/** What was tightened so far. */
export interface TightenedView {
  /** The tools switched off. */
  disabled_tools: DisabledTool[];
  /** The approval rules added. */
  approval_rules: ApprovalRule[];
}

/** The tools switched off and the rules added while the host runs. */
export class Tightening {
  #host: Host;
  #audit: AuditFile;
  #redactor: Redactor;
  #disabled = new Map<string, DisabledTool>();
  #rules: Approvals[] = [];
  #ruleList: ApprovalRule[] = [];
  #holding = false;

  /** @param host The host (its dispatcher, state directory, events, classes). */
  constructor(host: Host) {
    this.#host = host;
    this.#audit = new AuditFile(host.config.policy.stateDir, host.logger);
    this.#redactor = new Redactor(host.config.log.redactKeys ?? []);
  }

  /** What was tightened so far. */
  view(): TightenedView {
    return { disabled_tools: [...this.#disabled.values()], approval_rules: [...this.#ruleList] };
  }

  /** The calls the added rules hold now, oldest first. */
  pending(): PendingApproval[] {
    return this.#rules.flatMap((rules) => rules.pending());
  }

  /**
   * Answer a call an added rule holds.
   *
   * @param id The approval's id.
   * @param answer The answer.
   * @param via The channel.
   * @returns As {@linkcode Approvals.answer}; `unknown` when no added rule holds it.
   */
  answer(id: string, answer: ApprovalAnswer, via: string): AnswerOutcome {
    for (const rules of this.#rules) {
      const outcome = rules.answer(id, answer, via);
      if (outcome !== "unknown") return outcome;
    }
    return "unknown";
  }

  /**
   * Tighten, from a request's body.
   *
   * @param body The parsed body.
   * @param address The caller's address (for the audit).
   * @returns What is tightened now, or what is wrong with the body.
   */
  apply(body: unknown, address: string): TightenedView | string {
    const change = parseChange(body, {
      tools: this.#host.list().map((tool) => tool.name),
      rulesLeft: MAX_ADDED_RULES - this.#ruleList.length,
    });
    if (typeof change === "string") return change;
    const at = new Date().toISOString();
    for (const tool of change.disable) {
      if (!this.#disabled.has(tool)) this.#disabled.set(tool, { tool, at, ...who(change) });
    }
    if (change.rules.length > 0) {
      this.#rules.push(this.#approvals(change.rules));
      this.#ruleList.push(...change.rules);
    }
    this.#hold();
    const line = { disable_tools: change.disable, approval_rules: change.rules, ...who(change) };
    this.#audit.append({ ts: at, change: "tightened", via: "hook_api", ...line, caller: address });
    this.#host.events.emit("project_tightened", line);
    return this.view();
  }

  /** Resolves when the audit lines so far are written. */
  flush(): Promise<void> {
    return this.#audit.flush();
  }

  #approvals(rules: readonly ApprovalRule[]): Approvals {
    const host = this.#host;
    return new Approvals(rules, {
      classify: classifier(host),
      audit: (line) => this.#audit.append(line),
      onEvent: (type, data) => host.events.emit(type, data),
      redact: (args) => this.#redactor.apply(args),
    });
  }

  #hold(): void {
    if (this.#holding) return;
    this.#holding = true;
    this.#host.dispatcher.hold((call, ctx) => this.#gate(call, ctx));
  }

  async #gate(call: CallRecord, ctx: GateContext): Promise<GateVerdict | undefined> {
    const off = this.#disabled.get(call.tool);
    if (off !== undefined) return await this.#refuse(call, off);
    for (const rules of this.#rules) {
      const verdict = await rules.gate(call, ctx);
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  }

  /** A switched-off tool's call: refused, audited like a denial. */
  async #refuse(call: CallRecord, off: DisabledTool): Promise<GateVerdict> {
    const reason = `"${call.tool}" was switched off by a human through the Hook API${
      off.reason ? ` (${off.reason})` : ""
    }`;
    const approval: ApprovalNote = {
      id: crypto.randomUUID(),
      decision: "denied",
      via: "hook_api",
      ...(off.by ? { by: off.by } : {}),
      args_hash: await argsHash(call.tool, call.args),
      reason,
    };
    this.#audit.append({
      ts: new Date().toISOString(),
      ...approval,
      tool: call.tool,
      args: this.#redactor.apply(call.args),
      session: call.session,
      client: call.client,
    });
    const refusal: ToolResult = {
      content: [{ type: "text", text: `approval_denied: ${reason}; nothing was done` }],
      isError: true,
    };
    return { refusal, approval };
  }
}

/** The most approval rules the Hook API adds. */
export const MAX_ADDED_RULES = 32;

/**
 * A tool's approval classes, as the configured rules see them: an upstream
 * server's tools are those listed as `<server>__<tool>` (`tools/tool_names.ts`:
 * a server's name holds no `__`, and a name made to fit keeps that start).
 */
function classifier(host: Host): (tool: string) => readonly ApprovalClass[] {
  return (tool) =>
    classesOf(tool, {
      tools: () => host.list(),
      upstreams: host.status().upstreams.map(({ name }) => ({
        list: () =>
          host.list().filter((each) => each.name.startsWith(`${name}${UPSTREAM_SEPARATOR}`)),
      })),
    });
}

/** The `by` and `reason` a change gave. */
function who(change: ChangeRequest): { by?: string; reason?: string } {
  return {
    ...(change.by ? { by: change.by } : {}),
    ...(change.reason ? { reason: change.reason } : {}),
  };
}
