/**
 * `toolhost log`: recent interactions, for people, as a table.
 *
 * @module
 */

import { InteractionLog } from "../../sinks/interaction_log.ts";
import type { HostConfig } from "../config/config.ts";
import type { Printer } from "./printer.ts";

/** Filters for {@linkcode logCommand}. */
export interface LogFilters {
  /** Only this tool. */
  tool?: string;
  /** Only this outcome. */
  outcome?: string;
  /** Only calls touching a path containing this. */
  path?: string;
  /** Only this session. */
  session?: string;
  /** From this ISO time (default: yesterday 00:00 UTC). */
  since?: string;
  /** Up to this ISO time (default: now). */
  until?: string;
  /** The most rows (default 20). */
  limit?: number;
}

/**
 * Print recent interactions as a table, most recent first.
 *
 * @param config The configuration (the log is in its state directory).
 * @param filters What to show.
 * @param printer Where to print.
 * @returns The exit code.
 */
export async function logCommand(
  config: HostConfig,
  filters: LogFilters,
  printer: Printer,
): Promise<number> {
  const log = new InteractionLog({
    stateDir: config.policy.stateDir,
    maxDayBytes: config.log.maxDayBytes,
    maxTotalBytes: config.log.maxTotalBytes,
  });
  const query: Parameters<InteractionLog["query"]>[0] = { limit: filters.limit ?? 20 };
  for (const key of ["tool", "outcome", "path", "session"] as const) {
    if (filters[key]) query[key] = filters[key];
  }
  for (const key of ["since", "until"] as const) {
    const value = filters[key];
    if (value === undefined) continue;
    const at = Date.parse(value);
    if (Number.isNaN(at)) {
      printer.err(`toolhost: --${key} ${JSON.stringify(value)} is not an ISO 8601 time`);
      return 2;
    }
    query[key] = new Date(at);
  }
  const page = await log.query(query);
  const rows = page.interactions.map((each) => [
    each.ts.replace("T", " ").slice(0, 23),
    each.tool,
    each.outcome,
    `${each.duration_ms.toFixed(1)} ms`,
    `${each.result_bytes} B`,
    each.session,
    each.paths.slice(0, 2).join(", ") + (each.paths.length > 2 ? ", …" : ""),
  ]);
  const header = ["time (UTC)", "tool", "outcome", "duration", "result", "session", "paths"];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]!.length))
  );
  const format = (row: string[]) =>
    row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  printer.out(format(header));
  printer.out(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) printer.out(format(row));
  const notes = [
    `${rows.length} call${rows.length === 1 ? "" : "s"} (days ${page.days.join(", ") || "none"})`,
    ...(page.dropped.calls > 0
      ? [
        `${page.dropped.calls} more dropped by the log's size cap (${page.dropped.read} read-only, ${page.dropped.failed} failed, ${page.dropped.write} writes)`,
      ]
      : []),
    ...(page.skipped.malformed
      ? [`${page.skipped.malformed} corrupt or torn line(s) skipped`]
      : []),
    ...(page.skipped.too_long ? [`${page.skipped.too_long} line(s) too long to read skipped`] : []),
    ...(page.skipped.unreadable ? [`${page.skipped.unreadable} log file(s) unreadable`] : []),
  ];
  printer.out(notes.join("; "));
  return 0;
}
