/**
 * What the observation tools read: the host's own log, statistics, anchors
 * and sinks. These tools run in the host's process (not the tool worker);
 * the host gives them this through `ctx.shared("observation")`.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { ToolContext } from "../tool.ts";

/** One logged call (see `sinks/interaction_log.ts`). */
export interface LoggedInteraction {
  /** UTC ISO start time. */
  ts: string;
  /** The session. */
  session: string;
  /** The client. */
  client: string;
  /** The tool. */
  tool: string;
  /** Capped, redacted arguments. */
  args: unknown;
  /** `ok` or an error code. */
  outcome: string;
  /** Wall time. */
  duration_ms: number;
  /** Result size in bytes. */
  result_bytes: number;
  /** Paths touched. */
  paths: string[];
}

/** Per-tool latency statistics. */
export interface ToolStats {
  /** Calls since start. */
  count: number;
  /** Calls that ended in an error. */
  errors: number;
  /** Median latency (ms). */
  p50_ms: number;
  /** 95th percentile latency (ms). */
  p95_ms: number;
  /** Slowest call (ms). */
  max_ms: number;
}

/** A sink's health. */
export interface SinkStatus {
  /** Its name in `.mcp.json`. */
  name: string;
  /** Whether its connection is up. */
  connected: boolean;
  /** When it last took an observe call (UTC ISO), or null. */
  last_success: string | null;
  /** Calls dropped because its queue was full. */
  drops: number;
  /** Calls that failed or timed out. */
  failures: number;
}

/** What is in effect in the host and what is not (never a silent fallback). */
export interface HostStatus {
  /** Landlock in the tool workers. */
  landlock: { active: boolean; abi: number; reason?: string };
  /** ripgrep in the tool workers (searches use the JS walker when it is not active). */
  ripgrep: { active: boolean; path: string | null; version?: string; reason?: string };
  /** Efferent copy: off, or its sinks and the peers that are not. */
  efferent_copy: { state: "off" } | {
    state: "discovering" | "on";
    sinks: SinkStatus[];
    not_sinks: Array<{ name: string; reason: string }>;
    held: number;
    held_dropped: number;
  };
  /** Upstream servers. */
  upstreams: Array<{ name: string; state: "connected" | "down"; tools: number; error?: string }>;
  /** What in the configuration was ignored, and why. */
  warnings: string[];
}

/** The host state the observation tools read. */
export interface Observation {
  /** Query the interaction log. */
  query(query: {
    tool?: string;
    outcome?: string;
    path?: string;
    session?: string;
    since?: Date;
    until?: Date;
    limit: number;
  }): Promise<{ interactions: LoggedInteraction[]; skipped_lines: number; days: string[] }>;
  /** Every call of one UTC day (`YYYY-MM-DD`). */
  day(day: string): Promise<{ lines: LoggedInteraction[]; skipped: number }>;
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
