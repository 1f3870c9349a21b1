/**
 * Approvals and the events a human watches: calls that wait for a human's
 * decision, the audit of every decision, and the bounded event history the
 * Hook API and the dashboard read.
 *
 * @module
 */

export { Approvals, argsHash } from "./approvals.ts";
export { globMatcher } from "./_approval_parts.ts";
export type {
  AnswerOutcome,
  ApprovalAnswer,
  ApprovalsOptions,
  Elicit,
  GateContext,
  GateVerdict,
  PendingApproval,
} from "./_approval_types.ts";
export { AUDIT_FILE, AuditFile } from "./audit.ts";
export {
  type EventPage,
  eventValue,
  type HookEvent,
  HookEvents,
  MAX_EVENTS,
  MAX_PAGE,
} from "./events.ts";
export { APPROVAL_INPUT_KEY, INPUT_REQUIRED_META, type InputRound } from "./_rounds.ts";
