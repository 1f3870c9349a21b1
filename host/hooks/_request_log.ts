/**
 * The Hook API's lines in the session's log folder
 * (`<stateDir>/sessions/<session id>/`, beside `comms.jsonl`):
 * `apihooks.jsonl` (seed 001's `apihooks.log`), one line per request —
 * when, method, path (no query), status, duration in ms, and the caller:
 * its address and which token it showed (`hooks-token`, `wrong`, `none`,
 * or `unchecked` when refused before the token was looked at), never the
 * token itself — and `notes.jsonl`, a human's notes to the session.
 *
 * Each line is written before its response goes out, in one write. A file
 * stops at the session's cap (`log.sessions.maxSessionBytes`) with one
 * line that says so; nothing is written where the session log is off.
 *
 * @module
 */

import type { Host } from "../host.ts";
import type { HostLogger } from "../logger.ts";

/** The request log's name in the session's folder. */
export const REQUEST_LOG_FILE = "apihooks.jsonl";

/** The notes' file in the session's folder. */
export const NOTES_FILE = "notes.jsonl";

/** The bytes kept for the last line, which says the file reached its cap. */
const NOTE_ROOM = 256;

/** Which token a request showed. */
export type TokenShown = "hooks-token" | "wrong" | "none" | "unchecked";

/** One request, as logged. */
export interface RequestLine {
  /** When it came (UTC ISO). */
  ts: string;
  /** Its method. */
  method: string;
  /** Its path, without the query. */
  path: string;
  /** The status answered. */
  status: number;
  /** From its arrival to its answer, in ms. */
  duration_ms: number;
  /** Who asked. */
  caller: { address: string; token: TokenShown };
}

/** One JSON-lines file in the session's folder, bounded. */
export class SessionLineFile {
  /** Its path, or null where the session log is off. */
  readonly path: string | null;
  #dir: string;
  #cap: number;
  #logger: HostLogger;
  #file: Deno.FsFile | undefined;
  #bytes = 0;
  #stopped = false;
  #encoder = new TextEncoder();

  /**
   * @param host The host (its session's folder, whether it logs, the cap).
   * @param name The file's name.
   */
  constructor(host: Host, name: string) {
    this.#dir = host.sessions.dir;
    this.path = host.sessions.enabled ? `${this.#dir}/${name}` : null;
    this.#cap = host.config.log.sessions.maxSessionBytes;
    this.#logger = host.logger;
  }

  /**
   * Append one line (never throws; a failing disk is said once, then lines are lost).
   *
   * @param line The line's value.
   */
  append(line: Record<string, unknown>): void {
    if (this.path === null || this.#stopped) return;
    let bytes = this.#encoder.encode(`${JSON.stringify(line)}\n`);
    // Room is kept for the line that says the file stopped: the file stays within its cap.
    if (this.#bytes + bytes.length + NOTE_ROOM > this.#cap) {
      this.#stopped = true;
      const note = `Nothing more is written here: the file reached its cap of ${this.#cap} bytes`;
      bytes = this.#encoder.encode(`${JSON.stringify({ ts: new Date().toISOString(), note })}\n`);
    }
    try {
      this.#file ??= this.#open(this.path);
      let offset = 0;
      while (offset < bytes.length) offset += this.#file.writeSync(bytes.subarray(offset));
      this.#bytes += bytes.length;
    } catch (error) {
      this.#stopped = true;
      this.#logger.log(
        "warn",
        `Cannot write "${this.path}": the Hook API's lines are no longer kept`,
        String(error),
      );
    }
  }

  /** Close the file: later lines are not written. */
  close(): void {
    this.#stopped = true;
    this.#file?.close();
    this.#file = undefined;
  }

  #open(path: string): Deno.FsFile {
    Deno.mkdirSync(this.#dir, { recursive: true });
    return Deno.openSync(path, { append: true, create: true, mode: 0o600 });
  }
}
