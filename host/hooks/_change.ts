/**
 * The body of `POST /api/project`, checked: `{"disable_tools"?: [names],
 * "approvals"?: [rules as in the config's "approvals"], "by"?, "reason"?}`.
 * Only what tightens is taken: a seed-shaped body (`{"project": {...}}`,
 * which replaced the configuration) is refused, saying what to send.
 *
 * @module
 */

import { type ApprovalRule, approvalRules, CONFIG_SCHEMA } from "../config/mod.ts";

/** A change, checked. */
export interface ChangeRequest {
  /** Tools to switch off. */
  disable: string[];
  /** Approval rules to add (answered from the dashboard or the Hook API only). */
  rules: ApprovalRule[];
  /** Who asks (a name the human gives). */
  by?: string;
  /** Why. */
  reason?: string;
}

/** What the body may hold. */
const KEYS = new Set(["disable_tools", "approvals", "by", "reason"]);

/** The shape to send, said in refusals. */
const SHAPE =
  `send {"disable_tools"?: ["tool", ...], "approvals"?: [{"tools"?, "classes"?, "scope"?, "timeoutS"?}], "by"?, "reason"?}`;

/**
 * Check a change.
 *
 * @param body The parsed body.
 * @param known The tools listed now, and how many rules may still be added.
 * @returns The change, or what is wrong with it.
 */
export function parseChange(
  body: unknown,
  known: { tools: readonly string[]; rulesLeft: number },
): ChangeRequest | string {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return `Cannot tighten: ${SHAPE}`;
  }
  const value = body as Record<string, unknown>;
  if ("project" in value) {
    return `Cannot replace the configuration: POST /api/project only tightens the running host (${SHAPE}); the rest belongs in your own config file, outside the roots`;
  }
  const unknown = Object.keys(value).find((key) => !KEYS.has(key));
  if (unknown !== undefined) return `Cannot tighten with "${unknown}": ${SHAPE}`;
  for (const key of ["by", "reason"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") return `${key} is a string`;
  }
  const disable = toolNames(value.disable_tools, known.tools);
  if (typeof disable === "string") return disable;
  const rules = addedRules(value.approvals, known.rulesLeft);
  if (typeof rules === "string") return rules;
  if (disable.length + rules.length === 0) return `Cannot tighten with nothing: ${SHAPE}`;
  return {
    disable,
    rules,
    ...(typeof value.by === "string" ? { by: value.by.slice(0, 200) } : {}),
    ...(typeof value.reason === "string" ? { reason: value.reason.slice(0, 1000) } : {}),
  };
}

/** The tools to switch off: names the host lists now. */
function toolNames(value: unknown, tools: readonly string[]): string[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    return "disable_tools is a list of tool names";
  }
  const missing = value.find((name) => !tools.includes(name));
  if (missing !== undefined) {
    return `Cannot switch off "${missing}": no tool of that name is listed (GET /api/values/tools lists them; an approval rule takes globs)`;
  }
  return [...new Set(value as string[])];
}

/** The rules to add, checked as the config's `approvals` are; only the dashboard and the Hook API answer them. */
function addedRules(value: unknown, left: number): ApprovalRule[] | string {
  if (value === undefined) return [];
  const parsed = CONFIG_SCHEMA.shape.approvals.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `approvals: ${issue?.path.join(".") || "the list"}: ${issue?.message ?? "not valid"}`;
  }
  const input = parsed.data ?? [];
  if (input.length > left) return `Cannot add ${input.length} rules: ${left} more may be added`;
  return [...approvalRules(input.map((rule) => ({ ...rule, elicitation: false })))];
}
