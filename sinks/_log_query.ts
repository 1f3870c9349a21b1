/**
 * Reading the interaction log back: a day's files, or the days of a window
 * newest first within a byte budget, as streams; calls matched and kept in
 * bounded memory (the most recent `limit`), drop records summed, skipped
 * lines counted by why.
 *
 * @module
 */

import type { LogFiles, OpenSegment } from "./_log_files.ts";
import { eachLine, noSkips, Pacer, type ReaderLimits } from "./_log_reader.ts";
import { isDropRecord, mergeDropped, noDrops, parseRecord } from "./_log_records.ts";
import type {
  DayScan,
  DroppedCalls,
  Interaction,
  InteractionPage,
  InteractionQuery as LogQuery,
  QueryOptions,
  ReadOptions,
  SkippedLines,
} from "../tools/interactions.ts";

/** What {@linkcode queryLog} selects: the log's query, with its window known. */
export interface InteractionQuery extends LogQuery {
  /** From this instant. */
  since: Date;
  /** Up to this instant. */
  until: Date;
}

/** Where a read finds the log: its files, how to read them, and drops not yet written down. */
export interface LogSource {
  /** The files. */
  files: LogFiles;
  /** How lines are read. */
  limits: ReaderLimits;
  /** A day's calls and drops not on disk yet (held while a compaction makes room). */
  pending(
    day: string,
    onCall: (call: Interaction) => void,
    onDrop: (dropped: DroppedCalls) => void,
  ): void;
}

/**
 * Read calls back, most recent first.
 *
 * @param source The log.
 * @param query Filters, window and limit.
 * @param options Cancellation, progress, budget.
 * @returns The page.
 * @throws The signal's reason when the read is cancelled.
 */
export async function queryLog(
  source: LogSource,
  query: InteractionQuery,
  options: QueryOptions = {},
): Promise<InteractionPage> {
  const first = query.since.toISOString().slice(0, 10);
  const last = query.until.toISOString().slice(0, 10);
  const { files, unreadable } = await source.files.open((day) => day >= first && day <= last);
  const skipped = { ...noSkips(), unreadable };
  const dropped = noDrops();
  const top = new Top(query.limit);
  const { read, days, unread } = withinBudget(files, options.maxScanBytes ?? Infinity);
  const since = query.since.getTime();
  const until = query.until.getTime();
  let excluded = 0;
  const call = (line: Interaction) => {
    const at = Date.parse(line.ts);
    if (at < since || at > until || !matches(line, query)) return;
    if (query.exceptClient !== undefined && line.client === query.exceptClient) excluded++;
    else top.add(line);
  };
  const drop = (each: DroppedCalls) => mergeDropped(dropped, each);
  try {
    await readFiles(source.limits, read, { call, drop }, skipped, options);
  } finally {
    for (const each of files) each.file.close();
  }
  for (const day of days) source.pending(day, call, drop);
  return {
    interactions: top.list(),
    skipped,
    skipped_lines: skipped.malformed + skipped.too_long,
    dropped,
    days,
    unread_days: unread,
    ...(query.exceptClient === undefined ? {} : { excluded }),
  };
}

/**
 * Visit every call of one UTC day, in the order written.
 *
 * @param source The log.
 * @param day `YYYY-MM-DD`.
 * @param visit Called with each call.
 * @param options Cancellation and progress.
 * @returns How many calls there were, what was skipped and what the caps dropped.
 * @throws The signal's reason when the read is cancelled.
 */
export async function scanLogDay(
  source: LogSource,
  day: string,
  visit: (line: Interaction) => void,
  options: ReadOptions = {},
): Promise<DayScan> {
  const { files, unreadable } = await source.files.open((each) => each === day);
  const skipped = { ...noSkips(), unreadable };
  const dropped = noDrops();
  let calls = 0;
  const call = (line: Interaction) => {
    calls++;
    visit(line);
  };
  const drop = (each: DroppedCalls) => mergeDropped(dropped, each);
  try {
    await readFiles(source.limits, files, { call, drop }, skipped, options);
  } finally {
    for (const each of files) each.file.close();
  }
  source.pending(day, call, drop);
  return { calls, skipped, dropped };
}

/** The days to read, newest first, while they fit in the budget (at least one). */
function withinBudget(files: readonly OpenSegment[], budget: number) {
  const byDay = new Map<string, OpenSegment[]>();
  for (const each of files) byDay.set(each.day, [...(byDay.get(each.day) ?? []), each]);
  const read: OpenSegment[] = [];
  const days: string[] = [];
  const unread: string[] = [];
  let planned = 0;
  for (const [day, each] of [...byDay].reverse()) {
    const bytes = each.reduce((sum, file) => sum + file.bytes, 0);
    if (planned > 0 && planned + bytes > budget) {
      unread.push(day);
      continue;
    }
    planned += bytes;
    days.push(day);
    read.push(...each);
  }
  return { read, days, unread };
}

/** Read open files through; a file that fails midway is counted and the rest still read. */
async function readFiles(
  limits: ReaderLimits,
  files: readonly OpenSegment[],
  on: { call: (line: Interaction) => void; drop: (dropped: DroppedCalls) => void },
  skipped: SkippedLines,
  options: ReadOptions,
): Promise<void> {
  const total = files.reduce((sum, each) => sum + each.bytes, 0);
  const pacer = new Pacer(options, total, limits.yieldEveryMs);
  const decoder = new TextDecoder();
  pacer.start();
  for (const each of files) {
    try {
      skipped.too_long += await eachLine(
        each.file,
        each.bytes,
        (bytes) => {
          const record = parseRecord(decoder.decode(bytes));
          if (record === undefined) skipped.malformed++;
          else if (isDropRecord(record)) on.drop(record.dropped);
          else on.call(record);
        },
        limits,
        pacer,
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      skipped.unreadable++;
    }
  }
}

/** The most recent calls seen, at most `limit`, in bounded memory. */
class Top {
  #limit: number;
  #items: Array<{ line: Interaction; order: number }> = [];
  #seen = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(line: Interaction): void {
    const item = { line, order: this.#seen++ };
    const items = this.#items;
    if (items.length === this.#limit && !later(item, items[items.length - 1]!)) return;
    let at = items.length;
    while (at > 0 && later(item, items[at - 1]!)) at--;
    items.splice(at, 0, item);
    if (items.length > this.#limit) items.pop();
  }

  list(): Interaction[] {
    return this.#items.map((each) => each.line);
  }
}

/** Later start first; of two that started together, the one written later. */
function later(
  a: { line: Interaction; order: number },
  b: { line: Interaction; order: number },
): boolean {
  return a.line.ts > b.line.ts || (a.line.ts === b.line.ts && a.order > b.order);
}

function matches(line: Interaction, query: InteractionQuery): boolean {
  if (query.tool !== undefined && line.tool !== query.tool) return false;
  if (query.outcome !== undefined && line.outcome !== query.outcome) return false;
  if (query.session !== undefined && line.session !== query.session) return false;
  if (query.path !== undefined && !line.paths.some((path) => path.includes(query.path!))) {
    return false;
  }
  return true;
}
