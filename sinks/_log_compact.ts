/**
 * Keeping the interaction log under its size caps. When a day's files or
 * the whole log pass three quarters of their cap, sealed segments are
 * rewritten, oldest first, without their read-only calls that succeeded;
 * if that is not enough, without failures that changed nothing too; and
 * only then without calls of tools that write — until the log is back
 * under half its cap. What a rewrite drops is summed in one drop record
 * in its output (a line saying how many calls and bytes went, of which
 * kinds and tools, and why), which later rewrites merge and never drop.
 *
 * @module
 */

import { COMPACTING, type LogFiles, type Segment, segmentName } from "./_log_files.ts";
import { eachLine, Pacer, type ReaderLimits } from "./_log_reader.ts";
import {
  addDropped,
  isDropRecord,
  kindOf,
  KINDS,
  mergeDropped,
  noDrops,
  parseRecord,
} from "./_log_records.ts";

/** The log's size caps. */
export interface LogCaps {
  /** The most one UTC day's files may hold. */
  readonly maxDayBytes: number;
  /** The most all the log's files may hold. */
  readonly maxTotalBytes: number;
  /** An active segment is sealed once it holds this much. */
  readonly segmentBytes: number;
}

/** Rewriting starts past this share of a cap ... */
export const COMPACT_AT = 3 / 4;
/** ... and goes on until usage is back under this share. */
export const COMPACT_TO = 1 / 2;

/**
 * Whether a day's files, or the whole log, hold more than a share of their caps.
 *
 * @param files The log's files.
 * @param caps The caps.
 * @param day The UTC day.
 * @param share The share (e.g. {@linkcode COMPACT_AT}).
 * @returns The cap passed (`day_cap` first), or undefined.
 */
export function overCap(
  files: LogFiles,
  caps: LogCaps,
  day: string,
  share: number,
): "day_cap" | "total_cap" | undefined {
  if (files.dayBytes(day) > caps.maxDayBytes * share) return "day_cap";
  if (files.total > caps.maxTotalBytes * share) return "total_cap";
  return undefined;
}

/**
 * Rewrite sealed segments until every day and the whole log are back under
 * {@linkcode COMPACT_TO} of their caps, or nothing sealed is left to drop.
 *
 * @param files The log's files (its active segments are never touched).
 * @param caps The caps.
 * @param limits How segments are read.
 * @param now The clock (for the drop records).
 */
export async function compact(
  files: LogFiles,
  caps: LogCaps,
  limits: ReaderLimits,
  now: () => Date,
): Promise<void> {
  // One rewrite at a time, each at the lowest level that still drops something: the writer seals
  // segments meanwhile, and their read-only calls go before any older failure or write.
  for (let next = nextRewrite(files, caps); next; next = nextRewrite(files, caps)) {
    const { run, level, why } = next;
    if (!await rewrite(files, run, { level, why, limits, now, caps })) return;
  }
}

/**
 * The next rewrite: the lowest level at which a day over its target (oldest
 * day first) has a sealed segment that drops something.
 */
function nextRewrite(
  files: LogFiles,
  caps: LogCaps,
): { run: Segment[]; level: number; why: string } | undefined {
  for (let level = 1; level <= KINDS.length; level++) {
    for (const day of files.days()) {
      const why = overCap(files, caps, day, COMPACT_TO);
      if (why === undefined) continue;
      const run = files.segments(day).filter((each) =>
        each.seq !== 0 && (worth(each, level) || small(each, caps))
      );
      if (run.some((each) => worth(each, level))) return { run, level, why };
    }
  }
  return undefined;
}

/**
 * Whether rewriting a segment at a level drops anything, or merges its drop
 * records: a segment never rewritten that holds more than its calls (drop
 * records of lines not written) is rewritten once, else a flood's drop
 * records would fill the day until only its writes were left to drop.
 */
function worth(segment: Segment, level: number): boolean {
  if (segment.kinds === undefined) return segment.level < level;
  if (segment.kinds.slice(0, level).some((bytes) => bytes > 0)) return true;
  return segment.level === 0 && segment.bytes > segment.kinds.reduce((sum, each) => sum + each, 0);
}

/** A rewritten segment small enough to merge into the next rewrite (fewer files). */
function small(segment: Segment, caps: LogCaps): boolean {
  return segment.level > 0 && segment.bytes < caps.segmentBytes / 2;
}

/** How one rewrite goes. */
interface Rewrite {
  level: number;
  why: string;
  limits: ReaderLimits;
  now: () => Date;
  caps: LogCaps;
}

/**
 * Rewrite a day's segments, oldest first, into one that takes the first's
 * place; stop once enough is freed.
 *
 * @returns False when it failed (the inputs stay as they were, the next write retries).
 */
async function rewrite(files: LogFiles, run: Segment[], how: Rewrite): Promise<boolean> {
  const day = run[0]!.day;
  const path = `${files.dir}/.${crypto.randomUUID()}${COMPACTING}`;
  const out = new Output(await Deno.open(path, { write: true, createNew: true }), files, day);
  const dropped = noDrops();
  const kinds = KINDS.map(() => 0);
  const decoder = new TextDecoder();
  const done: Segment[] = [];
  let consumed = 0;
  try {
    for (const segment of run) {
      using file = await Deno.open(`${files.dir}/${segmentName(segment.day, segment.seq)}`, {
        read: true,
      });
      const size = (await file.stat()).size;
      const pacer = new Pacer({}, size, how.limits.yieldEveryMs);
      dropped.malformed += await eachLine(
        file,
        size,
        (bytes) => {
          const record = parseRecord(decoder.decode(bytes));
          if (record === undefined) dropped.malformed++;
          else if (isDropRecord(record)) mergeDropped(dropped, record.dropped);
          else {
            const kind = KINDS.indexOf(kindOf(record));
            if (kind < how.level) addDropped(dropped, record, bytes.length + 1, how.why);
            else {
              out.line(bytes);
              kinds[kind]! += bytes.length + 1;
            }
          }
        },
        how.limits,
        pacer,
      );
      done.push(segment);
      consumed += segment.bytes;
      // The counters hold the output written so far, not yet what is buffered, nor the inputs' going.
      const freed = consumed - (out.bytes - out.counted);
      if (worth(segment, how.level) && enough(files, how.caps, day, freed)) break;
    }
    if (dropped.calls > 0 || dropped.malformed > 0) {
      const record = { ts: how.now().toISOString(), day, dropped };
      out.line(new TextEncoder().encode(JSON.stringify(record)));
    }
    out.close();
    files.replace(done, { path, bytes: out.bytes, kinds, level: how.level }, out.counted);
    return true;
  } catch {
    // The log must never break the host: the inputs stay as they were, and the next write retries.
    await undo(files, out, day, path);
    return false;
  }
}

/** Take back a rewrite that failed: its output closed, uncounted and removed. */
async function undo(files: LogFiles, out: Output, day: string, path: string): Promise<void> {
  try {
    out.close();
  } catch {
    // nothing more to undo
  }
  files.grow(day, -out.counted);
  await Deno.remove(path).catch(() => {
    // Already gone, or left for the next compaction's `removeLeftovers`.
  });
}

/** Whether freeing `freed` more bytes of a day brings it and the log under their targets. */
function enough(files: LogFiles, caps: LogCaps, day: string, freed: number): boolean {
  return files.dayBytes(day) - freed <= caps.maxDayBytes * COMPACT_TO &&
    files.total - freed <= caps.maxTotalBytes * COMPACT_TO;
}

/** A rewrite's output: lines buffered, written in large pieces, counted as they go. */
class Output {
  /** Bytes given so far. */
  bytes = 0;
  /** Bytes written and counted in the log's usage. */
  counted = 0;
  #file: Deno.FsFile;
  #files: LogFiles;
  #day: string;
  #buffer = new Uint8Array(64 * 1024);
  #used = 0;
  #open = true;

  constructor(file: Deno.FsFile, files: LogFiles, day: string) {
    this.#file = file;
    this.#files = files;
    this.#day = day;
  }

  /** Add a line (its newline is added). */
  line(bytes: Uint8Array): void {
    if (this.#used + bytes.length + 1 > this.#buffer.length) this.#flush();
    if (bytes.length + 1 > this.#buffer.length) {
      this.#write(bytes);
      this.#write(new Uint8Array([0x0a]));
    } else {
      this.#buffer.set(bytes, this.#used);
      this.#buffer[this.#used + bytes.length] = 0x0a;
      this.#used += bytes.length + 1;
    }
    this.bytes += bytes.length + 1;
  }

  /** Write what is buffered and close the file. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      this.#flush();
    } finally {
      this.#file.close();
    }
  }

  #flush(): void {
    this.#write(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }

  #write(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) at += this.#file.writeSync(bytes.subarray(at));
    this.counted += bytes.length;
    this.#files.grow(this.#day, bytes.length);
  }
}
