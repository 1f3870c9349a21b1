/**
 * The interaction log as its readers see it: one logged call, what a read
 * skipped and what the size caps dropped, a page of a query, a day counted.
 * The log (`sinks/interaction_log.ts`) produces these; the observation
 * tools (`tools/observe/`) read them.
 *
 * @module
 */

import type { ApprovalNote } from "./calls.ts";

/** One logged call. */
export interface Interaction {
  /** When the call started (UTC ISO). */
  ts: string;
  /** The MCP session. */
  session: string;
  /** The client's name/version. */
  client: string;
  /** The tool. */
  tool: string;
  /** `ok`, the error code, `internal_error`, `denied` or `cancelled`. */
  outcome: string;
  /** Whether the tool may change things (it is not `readOnlyHint`); absent in old lines. */
  writes?: boolean;
  /** The call's own time: its wall time less `waited_ms`. */
  duration_ms: number;
  /** Time it waited for a human (its approval), when it did; not part of `duration_ms`. */
  waited_ms?: number;
  /** Size of the result as JSON, in bytes. */
  result_bytes: number;
  /** Paths the call touched. */
  paths: string[];
  /** The arguments, size-capped, secrets redacted. */
  args: unknown;
  /** The human's decision, when the call waited for approval. */
  approval?: ApprovalNote;
}

/**
 * A logged call's time as people read it: its own duration, and the wait
 * for a human apart.
 *
 * @param line The call's `duration_ms` and `waited_ms`.
 * @returns E.g. `12.3 ms` or `12.3 ms (+141.0 s waiting for approval)`.
 */
export function durationPhrase(line: Pick<Interaction, "duration_ms" | "waited_ms">): string {
  const own = `${line.duration_ms.toFixed(1)} ms`;
  if (typeof line.waited_ms !== "number") return own;
  return `${own} (+${(line.waited_ms / 1000).toFixed(1)} s waiting for approval)`;
}

/** Calls the size caps dropped from one day (summed over drop records). */
export interface DroppedCalls {
  /** Calls dropped. */
  calls: number;
  /** Their bytes in the log. */
  bytes: number;
  /** Read-only calls that succeeded. */
  read: number;
  /** Failures that changed nothing. */
  failed: number;
  /** Calls of tools that write. */
  write: number;
  /** Corrupt or over-long lines dropped with them (not calls). */
  malformed: number;
  /** Calls by tool (at most `MAX_KEYS` names; the rest under `(other)`). */
  by_tool: Record<string, number>;
  /** Calls by outcome (likewise bounded). */
  by_outcome: Record<string, number>;
  /** Why, by reason: `day_cap` (the day's file was over its cap), `total_cap` (the whole log was). */
  why: Record<string, number>;
  /** The first dropped call's start (UTC ISO), or null. */
  from: string | null;
  /** The last one's. */
  to: string | null;
}

/** What a read may be given: cancellation and a progress listener. */
export interface ReadOptions {
  /** Stops the read (it throws the signal's reason). */
  signal?: AbortSignal;
  /**
   * Told how far the read is, at each turn it gives the event loop.
   *
   * @param read Bytes read so far.
   * @param total Bytes to read in all.
   */
  onProgress?: (read: number, total: number) => void;
}

/** Lines a reader skipped, by why. */
export interface SkippedLines {
  /** Not a call: corrupt JSON, a line torn by a crash, another shape. */
  malformed: number;
  /** Longer than the reader's line limit (passed over unread). */
  too_long: number;
  /** Log files that could not be read, wholly or in part. */
  unreadable: number;
}

/** How a query reads: cancellation, progress, and a budget. */
export interface QueryOptions extends ReadOptions {
  /** Read days, newest first, only while they fit in this many bytes (at least one day is read). */
  maxScanBytes?: number;
}

/** What `queryLog` returns. */
export interface InteractionPage {
  /** The calls, most recent first. */
  interactions: Interaction[];
  /** Lines skipped while reading, by why. */
  skipped: SkippedLines;
  /** Skipped lines in all (malformed and too long). */
  skipped_lines: number;
  /** Calls the caps dropped from the days read. */
  dropped: DroppedCalls;
  /** The days read (UTC `YYYY-MM-DD`), newest first. */
  days: string[];
  /** Days of the window left unread: they did not fit in the budget. */
  unread_days: string[];
  /** Calls that matched but were left out as `exceptClient`'s (present only when it was given). */
  excluded?: number;
}

/** One day's calls, as `scanLogDay` counts them. */
export interface DayScan {
  /** Calls read. */
  calls: number;
  /** Lines skipped, by why. */
  skipped: SkippedLines;
  /** Calls the caps dropped from the day. */
  dropped: DroppedCalls;
}

/** What `InteractionLog.query` selects. */
export interface InteractionQuery {
  /** Only this tool. */
  tool?: string;
  /** Only this outcome. */
  outcome?: string;
  /** Only calls that touched a path containing this. */
  path?: string;
  /** Only this session. */
  session?: string;
  /** Not this client's calls: they are counted in the page's `excluded` instead. */
  exceptClient?: string;
  /** From this instant. */
  since?: Date;
  /** Up to this instant. */
  until?: Date;
  /** The most to return (most recent first). */
  limit: number;
}

/** The log's size and caps. */
export interface LogUsage {
  /** Bytes in its files now. */
  bytes: number;
  /** The cap on one day's files. */
  max_day_bytes: number;
  /** The cap on all of them. */
  max_total_bytes: number;
}

/** What the observation tools read of the log. */
export interface LogReader {
  /** `InteractionLog.query`, or an empty page. */
  query(query: InteractionQuery, options?: QueryOptions): Promise<InteractionPage>;
  /** `InteractionLog.scanDay`, or an empty day. */
  scanDay(day: string, visit: (line: Interaction) => void, options?: ReadOptions): Promise<DayScan>;
  /** The log's size and caps, or null. */
  log(): LogUsage | null;
}
