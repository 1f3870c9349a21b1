/**
 * The session log's lines: an MCP message as `comms.jsonl` keeps it, and a
 * process as `subprocess.jsonl` keeps it, each bounded and redacted by the
 * interaction log's {@linkcode Redactor} (`sinks/redact.ts`).
 *
 * A message over the per-message cap has its long strings cut first, then
 * is redacted, then cut again shorter: a secret that a cut splits is seen
 * whole (or long enough to look random) by the redactor, so no part of it
 * stays. What is still over the cap keeps a preview of its redacted JSON.
 *
 * @module
 */

import type { Redactor } from "../../sinks/redact.ts";
import { REDACTED } from "../../sinks/redact.ts";
import type { SubprocessRecord } from "../../tools/sandbox.ts";
import type { SubprocessLine } from "../../tools/sessions.ts";

/** Which way a message went: from the client (`in`) or to it (`out`). */
export type Direction = "in" | "out";

/** Characters the redactor sees past a cut, so that a secret across it is found whole. */
const MARGIN = 256;
/** Beyond this depth a value is replaced whole (as the redactor does past its own). */
const MAX_DEPTH = 64;
/** Marks a string cut before redaction: `<mark><length><mark>` then its first characters. */
const CUT_MARK = "\uE000";
const CUT = /^\uE000(\d+)\uE000/;
/** Each argument of a process is cut to this many characters, and at most this many are kept. */
const MAX_ARG_CHARS = 1024;
const MAX_ARGS = 256;
/** The heads of a process's output, its cwd and other fields are cut to these. */
const MAX_HEAD_CHARS = 1024;
const MAX_FIELD_CHARS = 4096;
/** Requests whose method a response is labelled with: at most this many remembered. */
const MAX_PENDING = 1024;

/**
 * Remembers the method of each request in flight, so that its response's
 * line names it too.
 */
export class PendingMethods {
  #pending = new Map<string, string>();

  /**
   * The method a message names, or that of the request it answers.
   *
   * @param direction Which way it went.
   * @param message The message.
   * @param session The client's session (ids repeat across a host's HTTP sessions).
   * @returns The method, when known.
   */
  methodOf(direction: Direction, message: unknown, session = ""): string | undefined {
    if (message === null || typeof message !== "object") return undefined;
    const { method, id } = message as { method?: unknown; id?: unknown };
    const key = typeof id === "string" || typeof id === "number"
      ? `${session} ${JSON.stringify(id)}`
      : undefined;
    if (typeof method === "string") {
      if (key !== undefined) this.#remember(`${direction}${key}`, method);
      return method;
    }
    if (key === undefined) return undefined;
    const asked = `${direction === "in" ? "out" : "in"}${key}`;
    const found = this.#pending.get(asked);
    this.#pending.delete(asked);
    return found;
  }

  #remember(key: string, method: string): void {
    this.#pending.set(key, method);
    if (this.#pending.size > MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value!);
  }
}

/**
 * One line of `comms.jsonl`: when, which way, the client's session (over
 * HTTP), the JSON-RPC method and id,
 * the message's size, and the message redacted (cut when over the cap).
 *
 * @param entry When, which way, the message and its method.
 * @param redactor The interaction log's redactor.
 * @param maxBytes The per-message cap, in characters of JSON.
 * @returns The line, with its newline.
 */
export function commsLine(
  entry: {
    ts: Date;
    direction: Direction;
    message: unknown;
    method: string | undefined;
    session?: string;
  },
  redactor: Redactor,
  maxBytes: number,
): string {
  const { message } = entry;
  const id = (message as { id?: unknown } | null)?.id;
  const head = {
    ts: entry.ts.toISOString(),
    dir: entry.direction,
    ...(entry.session === undefined ? {} : { session: entry.session }),
    ...(entry.method === undefined ? {} : { method: clip(entry.method, 256) }),
    ...(typeof id === "string" || typeof id === "number" ? { id } : {}),
  };
  let json: string;
  try {
    json = JSON.stringify(message) ?? "null";
  } catch (error) {
    const why = error instanceof Error ? error.name : "error";
    return `${JSON.stringify({ ...head, message: { _unloggable: why } })}\n`;
  }
  if (json.length <= maxBytes) {
    const redacted = redactor.apply(message);
    // Nothing redacted: the message's JSON is already made, and goes in as it is.
    if (redacted === message) {
      return `${JSON.stringify({ ...head, bytes: json.length }).slice(0, -1)},"message":${json}}\n`;
    }
    return `${JSON.stringify({ ...head, bytes: json.length, message: redacted })}\n`;
  }
  return `${
    JSON.stringify({
      ...head,
      bytes: json.length,
      cut: true,
      message: cutMessage(message, redactor, maxBytes),
    })
  }\n`;
}

/** A message over the cap: its strings cut, redacted, and a preview of its JSON if still over. */
function cutMessage(message: unknown, redactor: Redactor, maxBytes: number): unknown {
  const keep = Math.max(64, Math.floor(maxBytes / 4));
  const redacted = finishCuts(redactor.apply(markCuts(message, keep + MARGIN, 0)), keep, 0);
  const json = JSON.stringify(redacted) ?? "null";
  return json.length <= maxBytes ? redacted : { _preview: json.slice(0, maxBytes) };
}

/** A copy whose strings longer than `max` are cut to it and marked with their length. */
function markCuts(value: unknown, max: number, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > max
      ? `${CUT_MARK}${value.length}${CUT_MARK}${value.slice(0, max)}`
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((each) => markCuts(each, max, depth + 1));
  return mapEntries(value, (key, each) => [clip(key, max), markCuts(each, max, depth + 1)]);
}

/** The marked strings of a redacted copy, cut to `keep` characters with a note of their length. */
function finishCuts(value: unknown, keep: number, depth: number): unknown {
  if (typeof value === "string") {
    const mark = CUT.exec(value);
    if (!mark) return value;
    return `${value.slice(mark[0].length, mark[0].length + keep)}…[cut: ${mark[1]} chars]`;
  }
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((each) => finishCuts(each, keep, depth + 1));
  return mapEntries(value, (key, each) => [key, finishCuts(each, keep, depth + 1)]);
}

/** A new object of an object's entries, each mapped (`__proto__` kept as an own property). */
function mapEntries(
  value: object,
  map: (key: string, each: unknown) => [string, unknown],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, each] of Object.entries(value)) {
    const [name, mapped] = map(key, each);
    Object.defineProperty(out, name, {
      value: mapped,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * One line of `subprocess.jsonl`: the record's fields, bounded, its
 * arguments and output heads redacted. Fields of a record that came from
 * a tool worker are checked, never trusted to be what their type says.
 *
 * @param record The process.
 * @param at When it was recorded, the session, its place, and its kept script.
 * @param redactor The interaction log's redactor.
 * @returns The line, with its newline.
 */
export function subprocessLine(
  record: SubprocessRecord,
  at: { ts: Date; session: string; seq: number; script?: { file: string; redacted: boolean } },
  redactor: Redactor,
): string {
  const argv = Array.isArray(record.argv) ? record.argv : [];
  const kept = argv.slice(0, MAX_ARGS).map((arg) => clip(String(arg), MAX_ARG_CHARS + MARGIN));
  const args = (redactor.apply(kept) as string[]).map((arg) => clip(arg, MAX_ARG_CHARS));
  if (argv.length > MAX_ARGS) args.push(`…[${argv.length - MAX_ARGS} more arguments]`);
  const line: SubprocessLine = {
    ts: at.ts.toISOString(),
    session: at.session,
    seq: at.seq,
    tool: clip(String(record.tool), 256),
    argv: args,
    cwd: clip(redactor.text(String(record.cwd)), MAX_FIELD_CHARS),
    confinement: clip(String(record.confinement), 32),
    exit_code: Number.isInteger(record.exitCode) ? record.exitCode : null,
    signal: typeof record.signal === "string" ? clip(record.signal, 32) : null,
    timed_out: record.timedOut === true,
    cancelled: record.cancelled === true,
    duration_ms: Math.round(count(record.durationMs) * 1000) / 1000,
    stdout_bytes: count(record.stdoutBytes),
    stderr_bytes: count(record.stderrBytes),
    stdout_head: head(record.stdoutHead, redactor),
    stderr_head: head(record.stderrHead, redactor),
  };
  if (at.script) {
    line.script = at.script.file;
    if (at.script.redacted) line.script_redacted = true;
  }
  return `${JSON.stringify(line)}\n`;
}

/**
 * A note line (where the log stopped keeping something, and why).
 *
 * @param ts When.
 * @param note What happened.
 * @returns The line, with its newline.
 */
export function noteLine(ts: Date, note: string): string {
  return `${JSON.stringify({ ts: ts.toISOString(), note })}\n`;
}

/**
 * A kept script's text: the command with its secret-shaped parts redacted.
 *
 * @param script The command as the agent wrote it.
 * @param redactor The interaction log's redactor.
 * @returns The text and whether anything was redacted.
 */
export function scriptText(
  script: string,
  redactor: Redactor,
): { text: string; redacted: boolean } {
  const text = redactor.text(String(script));
  return { text: text.endsWith("\n") ? text : `${text}\n`, redacted: text !== script };
}

function head(value: unknown, redactor: Redactor): string {
  return clip(redactor.text(clip(String(value ?? ""), MAX_HEAD_CHARS + MARGIN)), MAX_HEAD_CHARS);
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * A new session id: when it started (UTC, to the second) and a random part,
 * so that ids sort by time and never collide.
 *
 * @param now The start.
 * @returns The id, e.g. `20260101T120000Z-0123abcd`.
 */
export function newSessionId(now: Date): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  const hex = [...random].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${compactTime(now).slice(0, 15)}Z-${hex}`;
}

/**
 * A time as file names carry it: `YYYYMMDDTHHMMSSmmmZ`.
 *
 * @param at The time.
 * @returns The compact form.
 */
export function compactTime(at: Date): string {
  return at.toISOString().replace(/[-:]/g, "").replace(".", "");
}
