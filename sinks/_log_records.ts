/**
 * The lines of the interaction log: one logged call each, or a drop record
 * (the calls the size caps dropped from that day), and how much a call is
 * worth keeping when something must go.
 *
 * @module
 */

import type { DroppedCalls, Interaction } from "../tools/interactions.ts";
/**
 * What a call is, for the caps: a read-only call that succeeded, a failure
 * that changed nothing, or a call of a tool that writes (whatever its
 * outcome, unless it was refused before acting). When the log is over a cap
 * the kinds go in this order, each oldest first.
 */
export type CallKind = "read" | "failed" | "write";

/** The kinds, in the order they are dropped. */
export const KINDS: readonly CallKind[] = Object.freeze(["read", "failed", "write"]);

/** Error codes by which a tool refuses before it acts: such a call of a writing tool changed nothing. */
const REFUSED = new Set([
  "approval_denied",
  "approval_timeout",
  "input_required",
  "path_denied",
  "protected_path",
  "invalid_path",
  "invalid_argument",
  "not_found",
  "not_a_file",
  "not_a_directory",
  "already_exists",
  "too_large",
  "binary_file",
  "no_match",
  "ambiguous_match",
  "syntax_error",
  "stale_read",
  "unsupported",
  "denied",
]);

/**
 * The kind of a logged call.
 *
 * @param line The call (`writes` absent counts as a writing tool).
 * @returns Its kind.
 */
export function kindOf(line: Pick<Interaction, "writes" | "outcome">): CallKind {
  if (line.writes !== false && !REFUSED.has(line.outcome)) return "write";
  return line.outcome === "ok" ? "read" : "failed";
}

/** A drop record, as its line in the log has it. */
export interface DropRecord {
  /** When the calls were dropped. */
  ts: string;
  /** The UTC day whose calls these were. */
  day: string;
  /** What was dropped. */
  dropped: DroppedCalls;
}

/** The most names a drop record's maps keep (a hostile outcome list cannot grow it). */
export const MAX_KEYS = 64;

/** No drops. */
export function noDrops(): DroppedCalls {
  return {
    calls: 0,
    bytes: 0,
    read: 0,
    failed: 0,
    write: 0,
    malformed: 0,
    by_tool: {},
    by_outcome: {},
    why: {},
    from: null,
    to: null,
  };
}

/**
 * Count one dropped call.
 *
 * @param into The summary to add to.
 * @param line The call.
 * @param bytes Its bytes in the log.
 * @param why `day_cap` or `total_cap`.
 */
export function addDropped(
  into: DroppedCalls,
  line: Interaction,
  bytes: number,
  why: string,
): void {
  into.calls++;
  into.bytes += bytes;
  into[kindOf(line)]++;
  bump(into.by_tool, line.tool, 1);
  bump(into.by_outcome, line.outcome, 1);
  bump(into.why, why, 1);
  if (into.from === null || line.ts < into.from) into.from = line.ts;
  if (into.to === null || line.ts > into.to) into.to = line.ts;
}

/**
 * Add one summary to another.
 *
 * @param into The summary to add to.
 * @param from The summary added.
 */
export function mergeDropped(into: DroppedCalls, from: DroppedCalls): void {
  for (const key of ["calls", "bytes", "read", "failed", "write", "malformed"] as const) {
    into[key] += from[key];
  }
  for (const key of ["by_tool", "by_outcome", "why"] as const) {
    for (const [name, count] of Object.entries(from[key])) bump(into[key], name, count);
  }
  if (from.from !== null && (into.from === null || from.from < into.from)) into.from = from.from;
  if (from.to !== null && (into.to === null || from.to > into.to)) into.to = from.to;
}

/**
 * Add to a count in a map of counts (bounded to {@linkcode MAX_KEYS} names).
 *
 * @param into The counts.
 * @param key The name (any string: a hand-made line may name a tool `__proto__`).
 * @param by How much.
 */
export function bump(into: Record<string, number>, key: string, by: number): void {
  const name = Object.hasOwn(into, key) || Object.keys(into).length < MAX_KEYS ? key : "(other)";
  const value = (Object.hasOwn(into, name) ? into[name]! : 0) + by;
  if (name === "__proto__") {
    Object.defineProperty(into, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else into[name] = value;
}

/**
 * One line of the log, parsed.
 *
 * @param text The line (without its newline).
 * @returns The call or drop record, or undefined when the line is neither.
 */
export function parseRecord(text: string): Interaction | DropRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.ts !== "string") return undefined;
  if (typeof record.dropped === "object" && record.dropped !== null) {
    return typeof record.day === "string" ? asDropRecord(record) : undefined;
  }
  if (typeof record.tool !== "string") return undefined;
  if (typeof record.outcome !== "string") record.outcome = "unknown";
  if (!Array.isArray(record.paths)) record.paths = [];
  return record as unknown as Interaction;
}

/** A drop record whose summary is complete (fields a hand-edited line lacks are zero). */
function asDropRecord(record: Record<string, unknown>): DropRecord {
  const dropped = noDrops();
  const raw = record.dropped as Record<string, unknown>;
  for (const key of ["calls", "bytes", "read", "failed", "write", "malformed"] as const) {
    if (typeof raw[key] === "number") dropped[key] = raw[key];
  }
  for (const key of ["by_tool", "by_outcome", "why"] as const) {
    const counts = raw[key];
    if (typeof counts !== "object" || counts === null) continue;
    for (const [name, count] of Object.entries(counts)) {
      if (typeof count === "number") bump(dropped[key], name, count);
    }
  }
  if (typeof raw.from === "string") dropped.from = raw.from;
  if (typeof raw.to === "string") dropped.to = raw.to;
  return { ts: record.ts as string, day: record.day as string, dropped };
}

/**
 * Whether a parsed line is a drop record.
 *
 * @param record A parsed line.
 */
export function isDropRecord(record: Interaction | DropRecord): record is DropRecord {
  return "dropped" in record;
}
