/**
 * What the observation tools read: the host's own log, statistics, anchors
 * and sinks. These tools run in the host's process (not the tool worker);
 * the host gives them this through `ctx.shared("observation")`.
 * The host's status is in `host_status.ts` (its types re-exported here),
 * in words in `status_phrases.ts`; the log's counts in words in
 * `log_phrases.ts`.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { ToolContext } from "../tool.ts";
import type {
  DayScan,
  DroppedCalls,
  Interaction as LoggedInteraction,
  InteractionPage,
  LogReader,
  LogUsage,
  ReadOptions,
  SkippedLines,
} from "../interactions.ts";
import type { HostStatus, SinkStatus } from "./host_status.ts";

export type { HostStatus, LaunchStatus, SinkStatus } from "./host_status.ts";
export type {
  DayScan,
  DroppedCalls,
  InteractionPage,
  LoggedInteraction,
  LogUsage,
  ReadOptions,
  SkippedLines,
};

/**
 * Per-tool latency statistics. Latency is a call's own time: a wait for a
 * human's approval is not in it, and a call the approval refused adds none.
 */
export interface ToolStats {
  /** Calls since start. */
  count: number;
  /** Calls that ended in an error. */
  errors: number;
  /** Calls that waited for a human's approval (that wait is not in the latency). */
  waited: number;
  /** Median latency (ms). */
  p50_ms: number;
  /** 95th percentile latency (ms). */
  p95_ms: number;
  /** Slowest call (ms). */
  max_ms: number;
}
/** The host state the observation tools read. */
export interface Observation extends LogReader {
  /** Per-tool statistics since start. */
  stats(): Record<string, ToolStats>;
  /** When the host started. */
  readonly startedAt: Date;
  /** The open context anchors (index only). */
  anchors(): Array<{ key: string; chars: number; updated_at: string }>;
  /** The efferent-copy sinks. */
  sinks(): SinkStatus[];
  /** What is in effect and what is not. */
  status(): HostStatus;
  /** The clock. */
  now(): Date;
}

/**
 * The observation the host gave this context.
 *
 * @param ctx The tool context.
 * @returns The observation.
 * @throws {ToolError} `unsupported` outside the host's process.
 */
export function observation(ctx: ToolContext): Observation {
  return ctx.shared<Observation>("observation", () => {
    throw new ToolError("unsupported", "Observation tools run only in the host's own process");
  });
}
