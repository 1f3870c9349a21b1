/**
 * Running one process for the sandbox: its output read as it comes, kept
 * bounded (head and tail, the middle elided with a count), the last lines
 * reported while it runs, and the whole process stopped (SIGKILL: bwrap's
 * PID namespace dies with it) at its time limit or on cancellation — once
 * the limit script said it started, since a bwrap killed while it sets up
 * leaves its namespace's init running on, orphaned (bwrap arms that init's
 * death with its parent only after the setup).
 *
 * @module
 */

import type { SandboxResult } from "../../tools/sandbox.ts";
import { carefulKill, StartMark } from "./_start_mark.ts";

/** What to run. */
export interface SpawnSpec {
  /** The program (absolute). */
  readonly program: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Where the host starts it (bwrap changes directory itself). */
  readonly cwd: string;
  /** Stopped after this many milliseconds. */
  readonly timeoutMs: number;
  /** Stopped when aborted. */
  readonly signal: AbortSignal;
  /** Bytes kept of each stream. */
  readonly maxBytes: number;
  /** Told the last lines of output while it runs. */
  readonly onOutput?: (tail: string) => void;
  /** Standard input. */
  readonly stdin?: Uint8Array;
  /**
   * What the process writes to standard error once it may be stopped (the
   * limit script's `START_MARK`): cut out of the output, and a stop asked
   * before it came waits for it (or for the process to end, or
   * `START_WAIT_MS` of `_start_mark.ts`).
   */
  readonly startMark?: string;
}

/**
 * What the process did: a sandbox result less what the sandbox adds (cwd,
 * limits, set-aside and kept files), and whether the start mark came (the
 * program itself started: else the sandbox's own setup failed).
 */
export type Spawned = Omit<SandboxResult, "cwd" | "limited" | "setAside" | "kept"> & {
  readonly started: boolean;
};

/** How often, at most, the last lines are reported. */
const REPORT_EVERY_MS = 1000;
/** How long output may go on after the process ended (a child of an unconfined run). */
const DRAIN_GRACE_MS = 2000;
/** How many of the last lines a report carries. */
const REPORT_LINES = 5;
/**
 * Run one process to its end, within its time limit.
 *
 * @param spec What to run, for how long, how much to keep.
 * @returns What it did.
 * @throws {Deno.errors.NotFound} When the program does not exist (and other spawn errors).
 */
export async function spawnBounded(spec: SpawnSpec): Promise<Spawned> {
  const started = performance.now();
  const child = new Deno.Command(spec.program, {
    args: [...spec.args],
    env: { ...spec.env },
    clearEnv: true,
    cwd: spec.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const mark = spec.startMark === undefined ? undefined : new StartMark(spec.startMark);
  const killer = carefulKill(child, mark);
  let stopped: "timeout" | "cancelled" | null = null;
  const stop = (why: "timeout" | "cancelled") => {
    if (stopped !== null) return;
    stopped = why;
    killer.kill();
  };
  const timer = setTimeout(() => stop("timeout"), spec.timeoutMs);
  const onAbort = () => stop("cancelled");
  if (spec.signal.aborted) onAbort();
  else spec.signal.addEventListener("abort", onAbort, { once: true });
  const out = new Capture(spec.maxBytes);
  const err = new Capture(spec.maxBytes);
  const reporter = spec.onOutput ? tailReporter(spec.onOutput, out, err) : undefined;
  const readers = [child.stdout.getReader(), child.stderr.getReader()];
  try {
    const writing = feed(child.stdin, spec.stdin);
    const pumps = Promise.all([
      pump(readers[0]!, out, reporter),
      pump(readers[1]!, err, reporter, mark),
    ]);
    // A read that fails while the process still runs is said once drained() awaits it.
    pumps.catch(() => {});
    const status = await child.status;
    await drained(pumps, readers);
    await writing;
    return {
      exitCode: status.signal === null ? status.code : null,
      signal: status.signal,
      stdout: out.text(),
      stderr: err.text(),
      stdoutBytes: out.total,
      stderrBytes: err.total,
      timedOut: stopped === "timeout",
      cancelled: stopped === "cancelled",
      durationMs: Math.round(performance.now() - started),
      started: mark?.found ?? true,
    };
  } finally {
    clearTimeout(timer);
    killer.dispose();
    spec.signal.removeEventListener("abort", onAbort);
    reporter?.stop();
  }
}

/** Write standard input (or nothing), then close it; a process that stopped reading is fine. */
async function feed(stdin: WritableStream<Uint8Array>, bytes: Uint8Array | undefined) {
  const writer = stdin.getWriter();
  try {
    if (bytes !== undefined && bytes.length > 0) await writer.write(bytes);
    await writer.close();
  } catch {
    // The process ended or closed its input first: what it did not read is its choice.
  }
}

/** Read a stream to its end into a capture (less the start mark, when it carries one). */
async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  into: Capture,
  reporter: { poke(): void } | undefined,
  mark?: StartMark,
): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      into.add(mark ? mark.take(value) : value);
      reporter?.poke();
    }
  } finally {
    // Bytes held back as a possible start of the mark were output after all.
    if (mark) into.add(mark.end());
  }
}

/**
 * Wait for the output to end once the process has: in the sandbox its PID
 * namespace is gone and the pipes close at once; an unconfined process may
 * have left a child holding them, whose output stops being read after a
 * grace period.
 */
async function drained(
  pumps: Promise<unknown>,
  readers: ReadableStreamDefaultReader<Uint8Array>[],
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<"grace">((resolve) => {
    timer = setTimeout(() => resolve("grace"), DRAIN_GRACE_MS);
  });
  try {
    if (await Promise.race([pumps, grace]) === "grace") {
      await Promise.all(readers.map((reader) => reader.cancel().catch(() => {})));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Reports the last lines of both streams at most once a second while output comes. */
function tailReporter(
  onOutput: (tail: string) => void,
  out: Capture,
  err: Capture,
): { poke(): void; stop(): void } {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const report = () => {
    timer = undefined;
    last = performance.now();
    const lines = `${out.tailText()}${err.tailText()}`.split("\n").filter((line) => line !== "");
    if (lines.length > 0) onOutput(lines.slice(-REPORT_LINES).join("\n"));
  };
  return {
    poke() {
      if (timer !== undefined) return;
      timer = setTimeout(report, Math.max(0, last + REPORT_EVERY_MS - performance.now()));
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/**
 * One stream's output, bounded: the first half of the budget, and the last
 * half as a ring; the total counted. Memory grows with the output, up to
 * the budget (a quiet program costs a few bytes, not the budget).
 */
export class Capture {
  #half: number;
  #head = new Uint8Array(0);
  #headUsed = 0;
  #tail: Uint8Array | undefined;
  #tailEnd = 0;
  #tailUsed = 0;
  /** Bytes seen in all. */
  total = 0;

  /** @param maxBytes Bytes kept in all (head and tail). */
  constructor(maxBytes: number) {
    this.#half = Math.max(1, Math.floor(maxBytes / 2));
  }

  /**
   * Take a chunk.
   *
   * @param chunk The bytes.
   */
  add(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.#headUsed < this.#half) {
      const take = Math.min(this.#half - this.#headUsed, rest.length);
      this.#grow(this.#headUsed + take);
      this.#head.set(rest.subarray(0, take), this.#headUsed);
      this.#headUsed += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    const tail = this.#tail ??= new Uint8Array(this.#half);
    if (rest.length > this.#half) rest = rest.subarray(rest.length - this.#half);
    for (let i = 0; i < rest.length;) {
      const room = Math.min(this.#half - this.#tailEnd, rest.length - i);
      tail.set(rest.subarray(i, i + room), this.#tailEnd);
      this.#tailEnd = (this.#tailEnd + room) % this.#half;
      this.#tailUsed = Math.min(this.#half, this.#tailUsed + room);
      i += room;
    }
  }

  /**
   * The output as text: whole when it fit, else head, a line saying how much
   * was left out, and tail.
   *
   * @returns The text.
   */
  text(): string {
    const decoder = new TextDecoder();
    const head = decoder.decode(this.#head.subarray(0, this.#headUsed));
    if (this.#tailUsed === 0) return head;
    const elided = this.total - this.#headUsed - this.#tailUsed;
    const tail = decoder.decode(this.#tailBytes());
    if (elided === 0) return head + tail;
    return `${head}\n[… ${elided} bytes left out …]\n${tail}`;
  }

  /**
   * The last bytes seen, as text (for progress).
   *
   * @returns The text.
   */
  tailText(): string {
    const bytes = this.#tailUsed > 0 ? this.#tailBytes() : this.#head.subarray(0, this.#headUsed);
    return new TextDecoder().decode(bytes.subarray(Math.max(0, bytes.length - 2048)));
  }

  /** Room for `size` bytes of head: doubling, up to half the budget. */
  #grow(size: number): void {
    if (size <= this.#head.length) return;
    const grown = new Uint8Array(Math.min(this.#half, Math.max(size, this.#head.length * 2, 4096)));
    grown.set(this.#head.subarray(0, this.#headUsed));
    this.#head = grown;
  }

  #tailBytes(): Uint8Array {
    const tail = this.#tail ?? new Uint8Array(0);
    if (this.#tailUsed < this.#half) return tail.subarray(0, this.#tailUsed);
    const out = new Uint8Array(this.#half);
    out.set(tail.subarray(this.#tailEnd), 0);
    out.set(tail.subarray(0, this.#tailEnd), this.#half - this.#tailEnd);
    return out;
  }
}
