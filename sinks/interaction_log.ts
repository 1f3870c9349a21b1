/**
 * The interaction log: one JSON line per tool call in
 * `<stateDir>/interactions/<UTC day>.jsonl` (and that day's sealed segments
 * `<day>.<n>.jsonl`), written by a single queue so concurrent calls never
 * interleave or lose lines, and read back as streams with filters (seed
 * 003). Size caps bound each day and the whole log: past them the oldest
 * read-only calls go first, then failures, and calls of tools that write
 * last (`_log_compact.ts`); every drop is written down as a drop record,
 * and readers count it. A torn, corrupt or over-long line is skipped and
 * counted by why, never fatal.
 *
 * @module
 */

import type { CallOutcome, CallRecord, CallResult, Sink } from "../tools/calls.ts";
import { Redactor } from "./redact.ts";
import type { LogCaps } from "./_log_compact.ts";
import { LogFiles } from "./_log_files.ts";
import {
  type InteractionQuery as WindowQuery,
  type LogSource,
  queryLog,
  scanLogDay,
} from "./_log_query.ts";
import { noSkips, READER_LIMITS, type ReaderLimits } from "./_log_reader.ts";
import { kindOf, KINDS, noDrops } from "./_log_records.ts";
import { LogWriter } from "./_log_writer.ts";
import type {
  DayScan,
  DroppedCalls,
  Interaction,
  InteractionPage,
  InteractionQuery,
  LogReader,
  QueryOptions,
  ReadOptions,
  SkippedLines,
} from "../tools/interactions.ts";

export type {
  DayScan,
  DroppedCalls,
  Interaction,
  InteractionPage,
  LogCaps,
  QueryOptions,
  ReaderLimits,
  ReadOptions,
  SkippedLines,
};
export { READER_LIMITS };

/** The default cap on one UTC day's files: 64 MiB. */
export const DEFAULT_MAX_DAY_BYTES = 64 * 1024 * 1024;
/** The default cap on the whole log: 512 MiB. */
export const DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024;

/** Options for {@linkcode InteractionLog}. */
export interface InteractionLogOptions {
  /** The state directory (the log lives in `interactions/` below it). */
  stateDir: string;
  /** Day files older than this are deleted (default 30). */
  retentionDays?: number;
  /** Arguments larger than this (as JSON) are cut to a preview (default 4096). */
  maxArgBytes?: number;
  /**
   * Argument keys whose values are redacted, besides the defaults (`sinks/redact.ts`): a key
   * is redacted anywhere in the args when its name contains one of them, ignoring case and
   * `-`/`_` (so `token` covers `GITHUB_TOKEN` and `x-auth-token`).
   */
  redactKeys?: readonly string[];
  /** The most one UTC day's files may hold (default {@linkcode DEFAULT_MAX_DAY_BYTES}; at most the total). */
  maxDayBytes?: number;
  /** The most the whole log may hold (default {@linkcode DEFAULT_MAX_TOTAL_BYTES}). */
  maxTotalBytes?: number;
  /**
   * Whether a tool may change things (it is not `readOnlyHint`): its calls are kept
   * longest when the log is over a cap (default: every tool may).
   */
  writes?: (tool: string) => boolean;
  /** How files are read (tests make these small). */
  reader?: Partial<ReaderLimits>;
  /** The clock (tests inject one). */
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Each logged string field is cut to this many characters (a client's name is its own to choose). */
const MAX_FIELD_CHARS = 256;

/**
 * The interaction log, as a call observer and a reader.
 *
 * @example
 * ```ts
 * const log = new InteractionLog({
 *   stateDir: "/srv/project/.toolhost",
 *   maxDayBytes: 8 * 1024 * 1024,
 *   writes: (tool) => tool !== "read_file",
 * });
 * const page = await log.query({ tool: "write_file", limit: 10 });
 * ```
 */
export class InteractionLog implements Sink {
  /** The folder of day files. */
  readonly dir: string;
  /** The caps in force. */
  readonly caps: LogCaps;
  #files: LogFiles;
  #writer: LogWriter;
  #source: LogSource;
  #maxArgBytes: number;
  #maxLineBytes: number;
  #writes: (tool: string) => boolean;
  #redactor: Redactor;
  #now: () => Date;

  /**
   * @param options Where, how long, how much, what to hide.
   * @throws {RangeError} When a cap is not a positive number.
   */
  constructor(options: InteractionLogOptions) {
    this.dir = `${options.stateDir}/interactions`;
    const total = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    const day = Math.min(options.maxDayBytes ?? DEFAULT_MAX_DAY_BYTES, total);
    if (!(day > 0)) throw new RangeError(`Cannot cap the interaction log at ${day} bytes`);
    this.caps = Object.freeze({
      maxDayBytes: day,
      maxTotalBytes: total,
      segmentBytes: Math.ceil(day / 8),
    });
    const limits = { ...READER_LIMITS, ...options.reader };
    this.#maxLineBytes = limits.maxLineBytes;
    this.#maxArgBytes = options.maxArgBytes ?? 4096;
    this.#writes = options.writes ?? (() => true);
    this.#redactor = new Redactor(options.redactKeys);
    this.#now = options.now ?? (() => new Date());
    this.#files = new LogFiles(this.dir);
    this.#writer = new LogWriter(this.#files, {
      caps: this.caps,
      limits,
      retentionDays: options.retentionDays ?? 30,
      now: this.#now,
    });
    this.#source = {
      files: this.#files,
      limits,
      pending: (each, onCall, onDrop) => this.#writer.pending(each, onCall, onDrop),
    };
  }

  /** Bytes in the log's files now. */
  get bytes(): number {
    return this.#files.total;
  }

  /**
   * Log a finished call (never throws, never waits for the disk).
   *
   * @param call The call.
   * @param outcome How it ended.
   */
  after(call: CallRecord, outcome: CallOutcome): void {
    this.append({
      ts: call.started.toISOString(),
      session: clip(call.session),
      client: clip(call.client),
      tool: clip(call.tool),
      outcome: clip(outcomeOf(outcome.result)).slice(0, 64),
      writes: this.#writesSafely(call.tool),
      duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
      ...(outcome.waitedMs === undefined
        ? {}
        : { waited_ms: Math.round(outcome.waitedMs * 1000) / 1000 }),
      result_bytes: jsonBytes(outcome.result),
      paths: outcome.paths.map(clip),
      args: this.#capArgs(call.args),
      ...(outcome.approval ? { approval: outcome.approval } : {}),
    });
  }

  /**
   * Append one line to the day of its timestamp (UTC).
   *
   * @param line The interaction.
   */
  append(line: Interaction): void {
    let text = JSON.stringify(line);
    if (text.length * 3 > this.#maxLineBytes && utf8Bytes(text) > this.#maxLineBytes) {
      // Every line written can be read back whole.
      text = JSON.stringify({
        ...line,
        args: { _truncated: true, _bytes: utf8Bytes(JSON.stringify(line.args) ?? "") },
        paths: line.paths.slice(0, 16),
        ...(line.paths.length > 16 ? { paths_omitted: line.paths.length - 16 } : {}),
      });
    }
    const kind = KINDS.indexOf(kindOf(line));
    this.#writer.enqueue(line.ts.slice(0, 10), { text: `${text}\n`, kind, call: line });
  }

  /** Resolves when everything logged so far is on disk (or counted as dropped), within the caps. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Close the day file (after a last flush). */
  close(): Promise<void> {
    return this.#writer.close();
  }

  /**
   * Read calls back, most recent first, as streams: the days of the window
   * newest first, while they fit in the budget.
   *
   * @param query Filters, window (default: yesterday and today, UTC) and limit.
   * @param options Cancellation, progress, budget.
   * @returns The page.
   * @throws The signal's reason when the read is cancelled.
   */
  query(query: InteractionQuery, options: QueryOptions = {}): Promise<InteractionPage> {
    this.#writer.drain();
    const until = query.until ?? this.#now();
    const since = query.since ?? new Date(until.getTime() - DAY_MS);
    return queryLog(this.#source, { ...query, since, until } satisfies WindowQuery, options);
  }

  /**
   * Visit every call of one UTC day, in the order written, as a stream.
   *
   * @param day `YYYY-MM-DD`.
   * @param visit Called with each call.
   * @param options Cancellation and progress.
   * @returns How many calls there were, what was skipped and what the caps dropped.
   * @throws The signal's reason when the read is cancelled.
   */
  scanDay(
    day: string,
    visit: (line: Interaction) => void,
    options: ReadOptions = {},
  ): Promise<DayScan> {
    this.#writer.drain();
    return scanLogDay(this.#source, day, visit, options);
  }

  #writesSafely(tool: string): boolean {
    try {
      return this.#writes(tool);
    } catch {
      return true;
    }
  }

  #capArgs(args: unknown): unknown {
    let json: string;
    let redacted: unknown;
    try {
      redacted = this.#redactor.apply(args);
      json = JSON.stringify(redacted) ?? "null";
    } catch (error) {
      // Cannot be written out (too deep for JSON.stringify): logged as such, never left out.
      return { _unloggable: error instanceof Error ? error.name : "error" };
    }
    if (json.length <= this.#maxArgBytes) return redacted;
    return { _truncated: true, _bytes: json.length, preview: json.slice(0, this.#maxArgBytes) };
  }
}

/**
 * What the observation tools read of a log, or of none when the log is off.
 *
 * @param log The log, if any.
 * @returns Its reader.
 */
export function logReader(log: InteractionLog | undefined): LogReader {
  if (!log) {
    return {
      query: () =>
        Promise.resolve({
          interactions: [],
          skipped: noSkips(),
          skipped_lines: 0,
          dropped: noDrops(),
          days: [],
          unread_days: [],
        }),
      scanDay: () => Promise.resolve({ calls: 0, skipped: noSkips(), dropped: noDrops() }),
      log: () => null,
    };
  }
  return {
    query: (query, options) => log.query(query, options),
    scanDay: (day, visit, options) => log.scanDay(day, visit, options),
    log: () => ({
      bytes: log.bytes,
      max_day_bytes: log.caps.maxDayBytes,
      max_total_bytes: log.caps.maxTotalBytes,
    }),
  };
}

/**
 * The outcome of a result: `ok`, or the stable code its text starts with.
 *
 * @param result A tool result.
 * @returns The outcome.
 */
export function outcomeOf(result: CallResult): string {
  if (!result.isError) return "ok";
  const first = result.content.find((block) => block.type === "text");
  const code = first?.text === undefined ? undefined : /^([a-z_]+): /.exec(first.text)?.[1];
  return code ?? "error";
}

function clip(value: string): string {
  return value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS)}…` : value;
}

function jsonBytes(value: unknown): number {
  try {
    return utf8Bytes(JSON.stringify(value) ?? "");
  } catch {
    return 0;
  }
}

function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
