/**
 * The session log as tools see it: how a tool in a worker reports a process
 * it ran itself (ripgrep), and how the observation tools read a session's
 * process records back. The host writes the log (`host/state/sessions.ts`):
 * `<stateDir>/sessions/<session id>/subprocess.jsonl`, one
 * {@linkcode SubprocessLine} per process.
 *
 * @module
 */

import type { SubprocessRecord } from "./sandbox.ts";
import type { ToolContext } from "./tool.ts";
import { ToolError } from "./tool.ts";

/** The key of the process report in a tool worker's context. */
export const PROCESS_REPORT_SERVICE = "process_report";

/** The key of the session reader in a host-side tool's context. */
export const SESSIONS_SERVICE = "sessions";

/** A process a tool ran itself: the host adds the tool and what confined it. */
export type RanProcess = Omit<SubprocessRecord, "tool" | "confinement">;

/** Where a tool reports the processes it ran itself (a no-op where nothing records them). */
export interface ProcessReport {
  /**
   * Report one process that ended.
   *
   * @param process What it was and what it did.
   */
  ran(process: RanProcess): void;
}

/** One process as `subprocess.jsonl` keeps it: bounded and redacted. */
export interface SubprocessLine {
  /** When it ended (UTC ISO). */
  ts: string;
  /** The session. */
  session: string;
  /** Its place in the session's records (from 1). */
  seq: number;
  /** The tool that started it, or the host's part (`upstream:<name>`, `sink:<name>`). */
  tool: string;
  /** The program and its arguments (redacted, each cut to a bound). */
  argv: string[];
  /** Where it ran. */
  cwd: string;
  /** What confined it: `bwrap`, `landlock` or `unconfined`. */
  confinement: string;
  /** Its exit code; null when a signal ended it or it was not known. */
  exit_code: number | null;
  /** The signal that ended it, when one did. */
  signal: string | null;
  /** Stopped at its time limit. */
  timed_out: boolean;
  /** Stopped because the call was cancelled. */
  cancelled: boolean;
  /** Wall time, in milliseconds. */
  duration_ms: number;
  /** Bytes it wrote to standard output. */
  stdout_bytes: number;
  /** Bytes it wrote to standard error. */
  stderr_bytes: number;
  /** The first bytes of its standard output (redacted). */
  stdout_head: string;
  /** The first bytes of its standard error (redacted). */
  stderr_head: string;
  /** The file in the session's folder that keeps its command (`scripts/<ts>_<seq>.sh`). */
  script?: string;
  /** Whether secrets were redacted from the kept command. */
  script_redacted?: boolean;
}

/** What {@linkcode SessionReader.subprocesses} selects. */
export interface SubprocessQuery {
  /** The session (default: this host's own). */
  session?: string;
  /** Only processes started by this tool. */
  tool?: string;
  /** The most to return (most recent first). */
  limit: number;
}

/** A session's process records, most recent first. */
export interface SubprocessPage {
  /** The session read. */
  session: string;
  /** The records, most recent first. */
  subprocesses: SubprocessLine[];
  /** Records read that matched (the page holds the most recent `limit`). */
  matched: number;
  /** Lines skipped: corrupt, torn or not records. */
  skipped: number;
  /** The log's own notes (where it stopped keeping something, and why). */
  notes: string[];
  /** Whether older records were left unread (the file is larger than a read takes). */
  older_unread: boolean;
}

/** Reads sessions' process records back. */
export interface SessionReader {
  /** This host's session id (what the interaction log records as `session`). */
  readonly current: string;
  /**
   * A session's process records.
   *
   * @param query The session, a tool, the limit.
   * @param signal Stops the read.
   * @returns The page.
   * @throws {ToolError} `not_found` when there is no such session, `invalid_argument` for a bad id.
   */
  subprocesses(query: SubprocessQuery, signal?: AbortSignal): Promise<SubprocessPage>;
}

/**
 * How a process ended, in a word or two: `exit 0`, `timeout`, `cancelled`,
 * the signal, or `exit unknown`.
 *
 * @param line The process.
 * @returns The words.
 */
export function processEnding(line: SubprocessLine): string {
  if (line.timed_out) return "timeout";
  if (line.cancelled) return "cancelled";
  if (line.exit_code !== null) return `exit ${line.exit_code}`;
  return line.signal ?? "exit unknown";
}

/**
 * The process report of a tool's context: where a tool in a worker reports
 * a process it ran; a no-op where the context has none.
 *
 * @param ctx The call's context.
 * @returns The report.
 */
export function processReportOf(ctx: ToolContext): ProcessReport {
  return ctx.shared<ProcessReport>(PROCESS_REPORT_SERVICE, () => ({ ran: () => {} }));
}

/**
 * The session reader of a host-side tool's context.
 *
 * @param ctx The call's context.
 * @returns The reader.
 * @throws {ToolError} `unsupported` where the host gave none (a worker's context).
 */
export function sessionReaderOf(ctx: ToolContext): SessionReader {
  return ctx.shared<SessionReader>(SESSIONS_SERVICE, () => {
    throw new ToolError("unsupported", "Session logs are read only in the host's own process");
  });
}
