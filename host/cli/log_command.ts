/**
 * `toolhost log`: recent interactions, for people, as a table.
 *
 * @module
 */

import { InteractionLog } from "../../sinks/interaction_log.ts";
import type { HostConfig } from "../config/mod.ts";
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

/** What {@linkcode InteractionLog.query} takes. */
type LogQuery = Parameters<InteractionLog["query"]>[0];

/** What {@linkcode InteractionLog.query} gives. */
type LogPage = Awaited<ReturnType<InteractionLog["query"]>>;

/** The table's columns. */
const HEADER: readonly string[] = Object.freeze([
  "time (UTC)",
  "tool",
  "outcome",
  "duration",
  "result",
  "session",
  "paths",
]);

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
  const query = logQuery(filters);
  if (typeof query === "string") {
    printer.err(query);
    return 2;
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
  printTable(rows, printer);
  printer.out(pageNotes(page, rows.length).join("; "));
  return 0;
}

/** The log query the filters ask for, or what is wrong with a time in them. */
function logQuery(filters: LogFilters): LogQuery | string {
  const query: LogQuery = { limit: filters.limit ?? 20 };
  for (const key of ["tool", "outcome", "path", "session"] as const) {
    if (filters[key]) query[key] = filters[key];
  }
  for (const key of ["since", "until"] as const) {
    const value = filters[key];
    if (value === undefined) continue;
    const at = Date.parse(value);
    if (Number.isNaN(at)) {
      return `toolhost: --${key} ${JSON.stringify(value)} is not an ISO 8601 time`;
    }
    query[key] = new Date(at);
  }
  return query;
}

/** The header, a rule, then the rows, each column as wide as its widest cell. */
function printTable(rows: string[][], printer: Printer): void {
  const widths = HEADER.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]!.length))
  );
  const format = (row: readonly string[]) =>
    row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  printer.out(format(HEADER));
  printer.out(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) printer.out(format(row));
}

/** What the table leaves out: how many calls from which days, and what was dropped or skipped. */
function pageNotes(page: LogPage, count: number): string[] {
  return [
    `${count} call${count === 1 ? "" : "s"} (days ${page.days.join(", ") || "none"})`,
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
}
