/**
 * Session logs (seed 001): what one served connection did, under
 * `<stateDir>/sessions/<session id>/`:
 *
 * - `comms.jsonl`: every MCP message in and out, one line each (when, which
 *   way, the JSON-RPC method and id, its size, and the message redacted as
 *   the interaction log redacts arguments, cut past a per-message cap);
 * - `subprocess.jsonl`: every process the host or a tool started, one line
 *   each when it ended (`SubprocessRecord`, bounded and redacted);
 * - `scripts/<ts>_<seq>.sh`: each shell command, in order, named by its
 *   process record.
 *
 * The session id is what the interaction log records as `session` for the connection. Lines are
 * queued and written once per turn of the event loop (after the turn's replies went out), one
 * append per file, so logging costs a message little and never blocks or breaks the transport.
 * Past `maxSessionBytes` a session stops logging messages (one note line says so) and keeps its
 * process records, up to twice that. Retention runs at start and whenever the sessions outgrow
 * their cap or a day passes (`_session_retention.ts`). A watcher (telemetry) sees it all.
 *
 * @module
 */

import { Redactor } from "../../sinks/redact.ts";
import type { SubprocessLog, SubprocessRecord } from "../../tools/sandbox.ts";
import type { SessionReader, SubprocessPage, SubprocessQuery } from "../../tools/sessions.ts";
import type { HostConfig, SessionLogSettings } from "../config/mod.ts";
import type { HostLogger } from "../logger.ts";
import { SCRIPTS_DIR, SessionFiles } from "./_session_files.ts";
import { LATEST_MS } from "./idle_work.ts";
import {
  commsLine,
  compactTime,
  type Direction,
  newSessionId,
  noteLine,
  PendingMethods,
  scriptText,
  subprocessLine,
} from "./_session_lines.ts";
import { readSubprocesses } from "./_session_reader.ts";
import { pruneSessions } from "./_session_retention.ts";
import { trustStateDir } from "./state_dir.ts";

export type { Direction } from "./_session_lines.ts";

/** Sees every message and ended process, logged or not (a message's session: this log's id on stdio). */
export interface MessageWatcher {
  message?(direction: Direction, message: unknown, session: string, client?: string): void;
  process?(record: SubprocessRecord): void;
}

/** Options for {@linkcode SessionLog.open}. */
export interface SessionLogOptions {
  /** The state directory (sessions live in `sessions/` below it). */
  stateDir: string;
  /** Whether to log, retention, caps. */
  settings: Readonly<SessionLogSettings>;
  /** More keys to redact (`log.redactKeys`). */
  redactKeys?: readonly string[] | undefined;
  /** Where a failing disk is said, once. */
  logger: HostLogger;
  /** The clock. */
  now?: () => Date;
}

/** A message or a process waiting for the next write. */
type Queued =
  | { ts: Date; direction: Direction; message: unknown; session?: string }
  | { ts: Date; refused: string }
  | { ts: Date; record: SubprocessRecord };

/** One served connection's log. */
export class SessionLog implements SubprocessLog {
  /** The session id: what the interaction log records as `session` for this connection. */
  readonly id: string;
  /** The session's folder. */
  readonly dir: string;
  /** Whether anything is logged (off by config, or where the state directory is not the host's). */
  readonly enabled: boolean;
  #root: string;
  #settings: Readonly<SessionLogSettings>;
  #files: SessionFiles;
  #redactor: Redactor;
  #now: () => Date;
  #methods = new PendingMethods();
  #queue: Queued[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #seq = 0;
  #commsStopped = false;
  #recordsStopped = false;
  #othersBytes = 0;
  #pruning: Promise<void> | undefined;
  #prunedDay = "";
  #prunedAtBytes = 0;
  #closed = false;
  #logger: HostLogger;
  #watcher: MessageWatcher | undefined;

  private constructor(options: SessionLogOptions, enabled: boolean) {
    this.#now = options.now ?? (() => new Date());
    this.id = newSessionId(this.#now());
    this.#root = `${options.stateDir}/sessions`;
    this.dir = `${this.#root}/${this.id}`;
    this.enabled = enabled;
    this.#settings = options.settings;
    this.#logger = options.logger;
    this.#files = new SessionFiles(this.dir, options.logger);
    this.#redactor = new Redactor(options.redactKeys ?? []);
  }

  /**
   * Open this connection's session log: the state directory is checked to
   * be the host's own, and retention runs in the background (also when
   * logging is off). Nothing is written until there is something to log.
   *
   * @param options Where, what, how much.
   * @returns The log (one that logs nothing when it is off).
   * @example
   * ```ts
   * const sessions = await SessionLog.open({ stateDir, settings: config.log.sessions, logger });
   * sessions.comms("in", { jsonrpc: "2.0", id: 1, method: "tools/list" });
   * ```
   */
  static async open(options: SessionLogOptions): Promise<SessionLog> {
    const trusted = await trustStateDir(options.stateDir, { logger: options.logger });
    const log = new SessionLog(options, options.settings.enabled && trusted);
    // Sessions kept before logging was switched off still go when their time is up.
    if (trusted) log.#prune();
    return log;
  }

  /**
   * Log an MCP message (never throws, never waits for the disk).
   *
   * @param direction `in` from the client, `out` to it.
   * @param message The JSON-RPC message.
   * @param session The client's session, where one host serves several (HTTP).
   * @param client The client, when its token names one (HTTP).
   */
  comms(direction: Direction, message: unknown, session?: string, client?: string): void {
    this.#watcher?.message?.(direction, message, session ?? this.id, client);
    if (!this.enabled || this.#commsStopped) return;
    this.#enqueue({ ts: this.#now(), direction, message, ...(session ? { session } : {}) });
  }

  /** Log a line the transport refused to read (too large, too deep, not JSON), and why, as told. */
  refused(why: string): void {
    if (this.enabled && !this.#commsStopped) this.#enqueue({ ts: this.#now(), refused: why });
  }

  /** Record a process that ended: what it was and did (never throws, never waits for the disk). */
  record(record: SubprocessRecord): void {
    this.#watcher?.process?.(record);
    if (this.enabled && !this.#recordsStopped) this.#enqueue({ ts: this.#now(), record });
  }

  /** Tell a watcher (one at a time; telemetry's) of every message and process, logged or not. */
  watch(watcher: MessageWatcher): void {
    this.#watcher = watcher;
  }

  /** @returns The reader of sessions' process records (this one's by default). */
  reader(): SessionReader {
    return {
      current: this.id,
      subprocesses: (query: SubprocessQuery, signal?: AbortSignal): Promise<SubprocessPage> => {
        this.#drain();
        const session = query.session ?? this.id;
        return readSubprocesses(this.#root, { ...query, session }, signal);
      },
    };
  }

  /** Resolves when everything logged so far is written (and retention in flight is done). */
  async flush(): Promise<void> {
    this.#drain();
    await this.#pruning;
  }

  /** Flush, then close the files. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#files.close();
  }

  /**
   * Queue an entry; the queue is written when the host waits on a worker (it flushes then,
   * `idle_work.ts`), or at the latest 10 ms later: one timer for many calls, as there.
   */
  #enqueue(entry: Queued): void {
    if (this.#closed) return;
    this.#queue.push(entry);
    this.#timer ??= setTimeout(() => (this.#timer = undefined, this.#drain()), LATEST_MS);
  }

  /** Write what is queued: one append per file. */
  #drain(): void {
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    let comms = "";
    let records = "";
    for (const entry of batch) {
      try {
        if ("record" in entry) records += this.#recordLine(entry.ts, entry.record);
        else comms += this.#commsLine(entry);
      } catch (error) {
        // One entry that cannot be written out must not cost the batch; the host says why.
        this.#logger.log("warn", "A session log line could not be written", String(error));
      }
    }
    this.#files.append("comms.jsonl", comms);
    this.#files.append("subprocess.jsonl", records);
    this.#checkCaps();
  }

  #commsLine(entry: Exclude<Queued, { record: SubprocessRecord }>): string {
    if ("refused" in entry) {
      const line = { ts: entry.ts.toISOString(), dir: "in", refused: entry.refused };
      return `${JSON.stringify(line)}\n`;
    }
    const method = this.#methods.methodOf(entry.direction, entry.message, entry.session);
    return commsLine({ ...entry, method }, this.#redactor, this.#settings.maxMessageBytes);
  }

  #recordLine(ts: Date, record: SubprocessRecord): string {
    const seq = ++this.#seq;
    let script: { file: string; redacted: boolean } | undefined;
    if (typeof record.script === "string") {
      const name = `${compactTime(ts)}_${String(seq).padStart(4, "0")}.sh`;
      const kept = scriptText(record.script, this.#redactor);
      if (this.#files.writeScript(name, kept.text)) {
        script = { file: `${SCRIPTS_DIR}/${name}`, redacted: kept.redacted };
      }
    }
    const at = { ts, session: this.id, seq, ...(script ? { script } : {}) };
    return subprocessLine(record, at, this.#redactor);
  }

  /** Stop what is over its cap (with a note), and start retention when the sessions outgrow theirs. */
  #checkCaps(): void {
    const { maxSessionBytes, maxTotalBytes } = this.#settings;
    const bytes = this.#files.bytes;
    if (!this.#commsStopped && bytes >= maxSessionBytes) {
      this.#commsStopped = true;
      const note =
        `MCP messages are no longer logged: the session holds ${bytes} bytes, over its cap of ${maxSessionBytes}; process records go on`;
      this.#files.append("comms.jsonl", noteLine(this.#now(), note));
    }
    if (!this.#recordsStopped && bytes >= 2 * maxSessionBytes) {
      this.#recordsStopped = true;
      const note =
        `Processes are no longer recorded: the session holds ${bytes} bytes, twice its cap of ${maxSessionBytes}`;
      this.#files.append("subprocess.jsonl", noteLine(this.#now(), note));
    }
    // Over the cap, retention runs again only once this session has grown by a sixteenth of it.
    const grown = bytes - this.#prunedAtBytes >= maxTotalBytes / 16;
    const day = this.#now().toISOString().slice(0, 10);
    if ((grown && this.#othersBytes + bytes > maxTotalBytes) || day !== this.#prunedDay) {
      this.#prune();
    }
  }

  /** Run retention in the background, one run at a time. */
  #prune(): void {
    if (this.#pruning !== undefined) return;
    const now = this.#now();
    this.#prunedDay = now.toISOString().slice(0, 10);
    this.#prunedAtBytes = this.#files.bytes;
    const { retentionDays, maxTotalBytes } = this.#settings;
    const rules = { own: this.id, ownBytes: this.#files.bytes, retentionDays, maxTotalBytes, now };
    this.#pruning = pruneSessions(this.#root, rules).then(
      ({ othersBytes }) => void (this.#othersBytes = othersBytes),
      (error) => this.#logger.log("warn", "Old session logs could not be deleted", String(error)),
    ).finally(() => (this.#pruning = undefined));
  }
}

/**
 * Open the session log a configuration asks for (`log.sessions`, `log.redactKeys`).
 *
 * @param config The configuration.
 * @param logger Where a failing disk is said, once.
 * @param now The clock.
 * @returns The log (one that logs nothing when it is off).
 */
export function openSessionLog(
  config: HostConfig,
  logger: HostLogger,
  now: () => Date,
): Promise<SessionLog> {
  const { stateDir } = config.policy;
  const { sessions: settings, redactKeys } = config.log;
  return SessionLog.open({ stateDir, settings, redactKeys, logger, now });
}
