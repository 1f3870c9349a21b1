/**
 * The Hook API and dashboard (`hooks` section, `--hooks PORT`), and the
 * approval rules (`approvals` section), resolved.
 *
 * @module
 */

import type { Listen } from "./http_settings.ts";
import { HOOK_ASK_TIMEOUT_S } from "./defaults.ts";
import type { ApprovalRuleInput, HooksSection } from "./schema.ts";
import type { APPROVAL_CLASSES } from "./schema.ts";

/** The Hook API's port when the section names none (seed 001's). */
export const DEFAULT_HOOKS_PORT = 8999;

/** How long an approval waits by default, in seconds. */
export const DEFAULT_APPROVAL_TIMEOUT_S = 120;

/** Where and how the Hook API serves. */
export interface HookSettings extends Listen {
  /** How long `POST /api/ask` waits. */
  readonly askTimeoutMs: number;
}

/** A class of tools an approval rule can name. */
export type ApprovalClass = typeof APPROVAL_CLASSES[number];

/** One approval rule, resolved. */
export interface ApprovalRule {
  /** Tool names or globs. */
  readonly tools: readonly string[];
  /** Classes of tools. */
  readonly classes: readonly ApprovalClass[];
  /** The widest approval a human may give: one call, or the tool for the session. */
  readonly scope: "call" | "session";
  /** Unanswered this long, the call fails with `approval_timeout`. */
  readonly timeoutMs: number;
  /** Whether the MCP client's user may answer (elicitation, input-required). */
  readonly elicitation: boolean;
}

/**
 * Where the Hook API listens: always loopback (it answers approvals), or
 * null when it is off.
 *
 * @param flag `--hooks PORT`, when given.
 * @param section The `hooks` section.
 * @returns The address, port and ask timeout, or null.
 * @throws {TypeError} When `--hooks` is not a port.
 */
export function hookSettings(
  flag: string | undefined,
  section?: HooksSection,
): HookSettings | null {
  const askTimeoutMs = (section?.askTimeoutS ?? HOOK_ASK_TIMEOUT_S) * 1000;
  if (flag !== undefined) {
    const text = flag.trim();
    const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (!(port <= 65_535)) {
      throw new TypeError(
        `Cannot serve the Hook API at "${flag}": give a port (it listens on 127.0.0.1 only)`,
      );
    }
    return Object.freeze({ hostname: "127.0.0.1", port, askTimeoutMs });
  }
  if (section === undefined || section.enabled === false) return null;
  return Object.freeze({
    hostname: "127.0.0.1",
    port: section.port ?? DEFAULT_HOOKS_PORT,
    askTimeoutMs,
  });
}

/**
 * The approval rules with their defaults.
 *
 * @param rules The `approvals` section.
 * @returns The rules, frozen.
 */
export function approvalRules(rules: readonly ApprovalRuleInput[] = []): readonly ApprovalRule[] {
  return Object.freeze(rules.map((rule) =>
    Object.freeze({
      tools: Object.freeze([...(rule.tools ?? [])]),
      classes: Object.freeze([...(rule.classes ?? [])]),
      scope: rule.scope ?? "call",
      timeoutMs: (rule.timeoutS ?? DEFAULT_APPROVAL_TIMEOUT_S) * 1000,
      elicitation: rule.elicitation ?? true,
    })
  ));
}
