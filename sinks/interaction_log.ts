/**
 * The interaction log: one JSON line per tool call in
 * `<stateDir>/interactions/<UTC day>.jsonl`, written by a single queue so
 * concurrent calls never interleave or lose lines, and read back with
 * filters (seed 003). A torn last line (after a crash) is skipped and
 * counted, never fatal.
 *
 * @module
 */

import { Redactor } from "./redact.ts";

/** A call, as the dispatcher reports it (structurally its `CallRecord`). */
export interface LoggedCall {
  /** The tool. */
  readonly tool: string;
  /** The raw arguments. */
  readonly args: unknown;
  /** The session. */
  readonly session: string;
  /** The client. */
  readonly client: string;
  /** When it started. */
  readonly started: Date;
}

/** A result, as far as the log looks at it. */
export interface LoggedResult {
  /** True for an error. */
  readonly isError?: boolean | undefined;
  /** The content blocks. */
  readonly content: ReadonlyArray<{ type: string; text?: string }>;
}

/** How a call ended (structurally the dispatcher's `CallOutcome`). */
export interface LoggedOutcome {
  /** The result the client got. */
  readonly result: LoggedResult;
  /** Paths touched. */
  readonly paths: readonly string[];
  /** Wall time. */
  readonly durationMs: number;
}

/** One logged call. */
export interface Interaction {
  /** When the call started (UTC ISO). */
  ts: string;
  /** The MCP session. */
  session: string;
  /** The client's name/version. */
  client: string;
  /** The tool. */
  tool: string;
  /** The arguments, size-capped, secrets redacted. */
  args: unknown;
  /** `ok`, the error code, `internal_error`, `denied` or `cancelled`. */
  outcome: string;
  /** Wall time. */
  duration_ms: number;
  /** Size of the result as JSON, in bytes. */
  result_bytes: number;
  /** Paths the call touched. */
  paths: string[];
}

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
  /** The clock (tests inject one). */
  now?: () => Date;
}

/** What {@linkcode InteractionLog.query} selects. */
export interface InteractionQuery {
  /** Only this tool. */
  tool?: string;
  /** Only this outcome. */
  outcome?: string;
  /** Only calls that touched a path containing this. */
  path?: string;
  /** Only this session. */
  session?: string;
  /** From this instant. */
  since?: Date;
  /** Up to this instant. */
  until?: Date;
  /** The most to return (most recent first). */
  limit: number;
}

/** What {@linkcode InteractionLog.query} returns. */
export interface InteractionPage {
  /** The calls, most recent first. */
  interactions: Interaction[];
  /** Corrupt or torn lines skipped while reading. */
  skipped_lines: number;
  /** The days read (UTC `YYYY-MM-DD`), newest first. */
  days: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The interaction log, as a call observer and a reader. */
export class InteractionLog {
  /** The folder of day files. */
  readonly dir: string;
  #retentionDays: number;
  #maxArgBytes: number;
  #redactor: Redactor;
  #now: () => Date;
  #queue: string[] = [];
  #queueDay: string | undefined;
  #writing: Promise<void> = Promise.resolve();
  #lastPruned = "";
  #open: { day: string; file: Deno.FsFile; torn: boolean } | undefined;
  #encoder = new TextEncoder();

  /** @param options Where, how long, what to hide. */
  constructor(options: InteractionLogOptions) {
    this.dir = `${options.stateDir}/interactions`;
    this.#retentionDays = options.retentionDays ?? 30;
    this.#maxArgBytes = options.maxArgBytes ?? 4096;
    this.#redactor = new Redactor(options.redactKeys);
    this.#now = options.now ?? (() => new Date());
    Deno.mkdirSync(this.dir, { recursive: true });
  }

  /**
   * Log a finished call (never throws, never waits for the disk).
   *
   * @param call The call.
   * @param outcome How it ended.
   */
  after(call: LoggedCall, outcome: LoggedOutcome): void {
    const line: Interaction = {
      ts: call.started.toISOString(),
      session: call.session,
      client: call.client,
      tool: call.tool,
      args: this.#capArgs(call.args),
      outcome: outcomeOf(outcome.result),
      duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
      result_bytes: new TextEncoder().encode(JSON.stringify(outcome.result)).length,
      paths: [...outcome.paths],
    };
    this.append(line);
  }

  /**
   * Append one line to the day file of its timestamp (UTC).
   *
   * @param line The interaction.
   */
  append(line: Interaction): void {
    const day = line.ts.slice(0, 10);
    if (this.#queueDay !== undefined && this.#queueDay !== day) this.#drain();
    this.#queueDay = day;
    this.#queue.push(`${JSON.stringify(line)}\n`);
    if (this.#queue.length === 1) queueMicrotask(() => this.#drain());
  }

  /** Resolves when everything logged so far is on disk. */
  async flush(): Promise<void> {
    this.#drain();
    await this.#writing;
  }

  /**
   * Read calls back, most recent first.
   *
   * @param query Filters, window and limit.
   * @returns The page.
   */
  async query(query: InteractionQuery): Promise<InteractionPage> {
    await this.flush();
    const until = query.until ?? this.#now();
    const since = query.since ?? new Date(until.getTime() - DAY_MS);
    const days: string[] = [];
    for (let t = dayStart(until); t >= dayStart(since); t -= DAY_MS) {
      days.push(new Date(t).toISOString().slice(0, 10));
    }
    const out: Interaction[] = [];
    let skipped = 0;
    for (const day of days) {
      const { lines, skipped: bad } = await this.#readDay(day);
      skipped += bad;
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i]!;
        const at = Date.parse(line.ts);
        if (at < since.getTime() || at > until.getTime()) continue;
        if (!matches(line, query)) continue;
        out.push(line);
      }
    }
    out.sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
    return { interactions: out.slice(0, query.limit), skipped_lines: skipped, days };
  }

  /**
   * Every call of one UTC day, oldest first.
   *
   * @param day `YYYY-MM-DD`.
   * @returns The lines and how many were skipped.
   */
  async day(day: string): Promise<{ lines: Interaction[]; skipped: number }> {
    await this.flush();
    return await this.#readDay(day);
  }

  async #readDay(day: string): Promise<{ lines: Interaction[]; skipped: number }> {
    let text: string;
    try {
      text = await Deno.readTextFile(`${this.dir}/${day}.jsonl`);
    } catch {
      return { lines: [], skipped: 0 };
    }
    const lines: Interaction[] = [];
    let skipped = 0;
    for (const raw of text.split("\n")) {
      if (raw === "") continue;
      try {
        const line = JSON.parse(raw) as Interaction;
        if (typeof line.ts !== "string" || typeof line.tool !== "string") {
          throw new TypeError("not an interaction");
        }
        lines.push(line);
      } catch {
        skipped++;
      }
    }
    return { lines, skipped };
  }

  /** Move the queued lines to the writer (one append per batch, in order). */
  #drain(): void {
    if (this.#queue.length === 0) return;
    const data = this.#queue.join("");
    const day = this.#queueDay!;
    this.#queue = [];
    try {
      // One handle per day, kept open: opening the file for every batch cost more than the call.
      if (this.#open?.day !== day) {
        this.#open?.file.close();
        this.#open = undefined;
        const file = Deno.openSync(`${this.dir}/${day}.jsonl`, {
          read: true,
          append: true,
          create: true,
        });
        this.#open = { day, file, torn: !endsWithNewlineSync(file) };
      }
      // A line torn by a crash stays alone on its line: the first append of a day ends it.
      const bytes = this.#encoder.encode(this.#open.torn ? `\n${data}` : data);
      this.#open.torn = false;
      let offset = 0;
      while (offset < bytes.length) offset += this.#open.file.writeSync(bytes.subarray(offset));
    } catch {
      // The log must never break a call; a failed append loses only these lines.
      this.#open?.file.close();
      this.#open = undefined;
    }
    if (day !== this.#lastPruned) {
      this.#writing = this.#writing.then(() => this.#prune(day)).catch(() => {});
    }
  }

  /** Close the day file (after a last flush). */
  async close(): Promise<void> {
    await this.flush();
    this.#open?.file.close();
    this.#open = undefined;
  }

  async #prune(today: string): Promise<void> {
    this.#lastPruned = today;
    const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - this.#retentionDays * DAY_MS)
      .toISOString().slice(0, 10);
    for await (const entry of Deno.readDir(this.dir)) {
      const match = /^(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(entry.name);
      if (match && match[1]! < oldest) {
        await Deno.remove(`${this.dir}/${entry.name}`).catch(() => {});
      }
    }
  }

  #capArgs(args: unknown): unknown {
    const redacted = this.#redactor.apply(args);
    const json = JSON.stringify(redacted) ?? "null";
    if (json.length <= this.#maxArgBytes) return redacted;
    return { _truncated: true, _bytes: json.length, preview: json.slice(0, this.#maxArgBytes) };
  }
}

/**
 * The outcome of a result: `ok`, or the stable code its text starts with.
 *
 * @param result A tool result.
 * @returns The outcome.
 */
export function outcomeOf(result: LoggedResult): string {
  if (!result.isError) return "ok";
  const first = result.content.find((block) => block.type === "text");
  const code = first?.text === undefined ? undefined : /^([a-z_]+): /.exec(first.text)?.[1];
  return code ?? "error";
}

/** Whether an open file is empty or ends with a newline. */
function endsWithNewlineSync(file: Deno.FsFile): boolean {
  const size = file.statSync().size;
  if (size === 0) return true;
  file.seekSync(size - 1, Deno.SeekMode.Start);
  const last = new Uint8Array(1);
  file.readSync(last);
  return last[0] === 0x0a;
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

function dayStart(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}
