/**
 * `toolhost log`: recent interactions, for people, as a table; with
 * `--subprocesses`, the processes a session ran (the latest an MCP client
 * spoke to by default). `toolhost doctor`'s own probes are left out (and
 * counted) unless `--all` is given. Every cell and note is shown through
 * {@linkcode printable}: what agents ran, named and wrote never reaches the
 * terminal as control characters.
 *
 * @module
 */

import { InteractionLog } from "../../sinks/interaction_log.ts";
import { ToolError } from "../../security/errors.ts";
import { printable, printableJson } from "../../security/printable.ts";
import { durationPhrase } from "../../tools/interactions.ts";
import { processEnding, type SubprocessLine } from "../../tools/sessions.ts";
import type { HostConfig } from "../config/mod.ts";
import { readSessionProcesses } from "../state/mod.ts";
import { DOCTOR_CLIENT } from "./doctor_report.ts";
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
  /** Show a session's processes instead of calls (`session`, `tool` and `limit` apply). */
  subprocesses?: boolean;
  /**
   * Also `toolhost doctor`'s probes: its calls, and for `subprocesses`, the latest session
   * of any (by default, the latest an MCP client spoke to).
   */
  all?: boolean;
}

/** The `log` command's options as the command line gives them. */
export type LogOptions =
  & {
    readonly [key in "tool" | "outcome" | "path" | "session" | "since" | "until" | "limit"]?:
      | string
      | undefined;
  }
  & { readonly subprocesses?: boolean | undefined; readonly all?: boolean | undefined };

/**
 * The `log` command's filters from its options (`--limit` at least 1, 20 when not a number).
 *
 * @param values The options, as parsed.
 * @returns The filters.
 */
export function logFilters(values: LogOptions): LogFilters {
  const filters: LogFilters = {};
  for (const key of ["tool", "outcome", "path", "session", "since", "until"] as const) {
    const value = values[key];
    if (value !== undefined) filters[key] = value;
  }
  if (values.limit !== undefined) {
    filters.limit = Math.max(1, Number.parseInt(values.limit, 10) || 20);
  }
  if (values.subprocesses) filters.subprocesses = true;
  if (values.all) filters.all = true;
  return filters;
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
  if (filters.subprocesses) return await processesCommand(config, filters, printer);
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
    durationPhrase(each),
    `${each.result_bytes} B`,
    each.session,
    each.paths.slice(0, 2).join(", ") + (each.paths.length > 2 ? ", …" : ""),
  ]);
  printTable(HEADER, rows, printer);
  printer.out(printable(pageNotes(page, rows.length).join("; ")));
  return 0;
}

/** The process table's columns. */
const PROCESS_HEADER: readonly string[] = Object.freeze([
  "time (UTC)",
  "tool",
  "ended",
  "duration",
  "command",
  "script",
]);

/** A command is shown up to this many characters. */
const COMMAND_CHARS = 120;

/** Print a session's processes as a table, most recent first. */
async function processesCommand(
  config: HostConfig,
  filters: LogFilters,
  printer: Printer,
): Promise<number> {
  const others = (["outcome", "path", "since", "until"] as const).filter((key) => filters[key]);
  if (others.length > 0) {
    printer.err(`toolhost: --${others[0]} filters calls, not --subprocesses`);
    return 2;
  }
  let page;
  try {
    page = await readSessionProcesses(config.policy.stateDir, {
      limit: filters.limit ?? 20,
      ...(filters.session ? { session: filters.session } : {}),
      ...(filters.tool ? { tool: filters.tool } : {}),
    }, { any: filters.all === true });
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    printer.err(`toolhost: ${printable(error.message)}`);
    return 1;
  }
  printTable(PROCESS_HEADER, page.subprocesses.map(processRow), printer);
  const notes = [
    `${page.subprocesses.length} of ${page.matched} process(es) of session ${page.session}`,
    ...(page.passed_over > 0
      ? [
        `${page.passed_over} newer session(s) no MCP client spoke to (toolhost doctor's probes, toolhost call) passed over: --all takes the latest of any`,
      ]
      : []),
    ...(page.older_unread ? ["older ones not read"] : []),
    ...(page.skipped > 0 ? [`${page.skipped} unreadable line(s) skipped`] : []),
  ];
  printer.out(printable([...notes, ...page.notes].join("; ")));
  return 0;
}

/** One process as table cells. */
function processRow(each: SubprocessLine): string[] {
  // Cut by code points (a cut never halves a character), before escaping (never halves an escape).
  const command = [...each.argv.join(" ")];
  return [
    each.ts.replace("T", " ").slice(0, 23),
    each.tool,
    processEnding(each),
    `${each.duration_ms.toFixed(1)} ms`,
    command.length > COMMAND_CHARS
      ? `${command.slice(0, COMMAND_CHARS).join("")}…`
      : command.join(""),
    each.script ?? "",
  ];
}

/** The log query the filters ask for, or what is wrong with a time in them. */
function logQuery(filters: LogFilters): LogQuery | string {
  const query: LogQuery = {
    limit: filters.limit ?? 20,
    ...(filters.all ? {} : { exceptClient: DOCTOR_CLIENT }),
  };
  for (const key of ["tool", "outcome", "path", "session"] as const) {
    if (filters[key]) query[key] = filters[key];
  }
  for (const key of ["since", "until"] as const) {
    const value = filters[key];
    if (value === undefined) continue;
    const at = Date.parse(value);
    if (Number.isNaN(at)) {
      return `toolhost: --${key} ${printableJson(JSON.stringify(value))} is not an ISO 8601 time`;
    }
    query[key] = new Date(at);
  }
  return query;
}

/**
 * The header, a rule, then the rows, each column as wide as its widest cell;
 * every cell shown through {@linkcode printable} (tabs and line feeds too,
 * so that a row stays one line).
 */
function printTable(header: readonly string[], cells: string[][], printer: Printer): void {
  const rows = cells.map((row) => row.map((cell) => printable(cell)));
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]!.length))
  );
  const format = (row: readonly string[]) =>
    row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  printer.out(format(header));
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
    ...(page.excluded
      ? [`${page.excluded} of toolhost doctor's probe call(s) not shown: --all shows them`]
      : []),
  ];
}
