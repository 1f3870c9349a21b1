/**
 * The interaction log's writer: one queue, drained once per turn of the
 * event loop as one append per day file, so that concurrent calls never
 * interleave and logging costs a call little. It keeps the log under its
 * caps with running counters (never a directory scan per call):
 *
 * - past 3/4 of a cap it starts a compaction (`_log_compact.ts`) in the
 *   background;
 * - a batch that does not fit meanwhile is held in memory (bounded) until
 *   the compaction has made room, so that the oldest calls go first;
 * - what still does not fit is not written — read-only calls that succeeded
 *   past 7/8 of a cap, anything past the cap — and is summed in a drop
 *   record written as soon as there is room.
 *
 * @module
 */

import { compact, COMPACT_AT, type LogCaps, overCap } from "./_log_compact.ts";
import type { LogFiles, Segment } from "./_log_files.ts";
import type { ReaderLimits } from "./_log_reader.ts";
import { addDropped, KINDS, mergeDropped, noDrops } from "./_log_records.ts";
import type { DroppedCalls, Interaction } from "../tools/interactions.ts";
import { concatBytes } from "../tools/_bytes.ts";

/** A line waiting to be written: a call (with its kind) or a drop record. */
export interface Queued {
  /** The line, with its newline. */
  text: string;
  /** Its kind's place in `KINDS`; `KINDS.length` for a drop record. */
  kind: number;
  /** The call, for a drop record when it is not written. */
  call?: Interaction;
  /** The drops a drop record carries. */
  drop?: DroppedCalls;
}

/** How the writer works. */
export interface WriterOptions {
  /** The caps. */
  caps: LogCaps;
  /** How compaction reads. */
  limits: ReaderLimits;
  /** Day files older than this many days are deleted. */
  retentionDays: number;
  /** The clock. */
  now: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Read-only calls that succeeded are not written past this share of a cap (room for the rest). */
const SHED_READS_AT = 7 / 8;
/** Batches held while a compaction makes room: at most this many bytes (or one segment). */
const HOLD_BYTES = 1024 * 1024;

/** Writes the log's lines in order, within its caps. */
export class LogWriter {
  #files: LogFiles;
  #options: WriterOptions;
  #encoder = new TextEncoder();
  #queue: Queued[] = [];
  #queueDay: string | undefined;
  #held: Array<{ day: string; batch: Queued[] }> = [];
  #heldBytes = 0;
  #writing: Promise<void> = Promise.resolve();
  #lastPruned = "";
  #open: { day: string; file: Deno.FsFile; torn: boolean; segment: Segment } | undefined;
  /** Calls not written because the log was full, by day, until their drop record is. */
  #shed = new Map<string, DroppedCalls>();
  #compacting = false;
  /** Something was sealed since the last compaction, or the log was over a cap at start. */
  #fresh = true;
  #overAtStart: boolean;
  #compactedOnce = false;

  /**
   * @param files The log's files.
   * @param options Caps, limits, retention, clock.
   */
  constructor(files: LogFiles, options: WriterOptions) {
    this.#files = files;
    this.#options = options;
    this.#overAtStart = files.days().some((day) =>
      overCap(files, options.caps, day, COMPACT_AT) !== undefined
    );
  }

  /**
   * Queue a line for its day's file.
   *
   * @param day The UTC day.
   * @param entry The line.
   */
  enqueue(day: string, entry: Queued): void {
    if (this.#queueDay !== undefined && this.#queueDay !== day) this.drain();
    this.#queueDay = day;
    this.#queue.push(entry);
    if (this.#queue.length === 1) queueMicrotask(() => this.drain());
  }

  /**
   * What of a day is not on disk yet: calls held while a compaction makes room, and drops
   * not yet written down (a reader adds them to what it read).
   *
   * @param day The UTC day.
   * @param onCall Called with each held call.
   * @param onDrop Called with each drop summary.
   */
  pending(
    day: string,
    onCall: (call: Interaction) => void,
    onDrop: (dropped: DroppedCalls) => void,
  ): void {
    for (const held of this.#held) {
      if (held.day !== day) continue;
      for (const each of held.batch) {
        if (each.call) onCall(each.call);
        if (each.drop) onDrop(each.drop);
      }
    }
    const shed = this.#shed.get(day);
    if (shed) onDrop(shed);
  }

  /** Write the queued lines now (or hold them while a compaction makes room). */
  drain(): void {
    if (this.#queue.length === 0) return;
    const day = this.#queueDay!;
    const batch = this.#queue;
    this.#queue = [];
    if (this.#held.length > 0) {
      // Lines wait behind those held, in order, up to the bound; past it they are admitted now.
      const chars = charsOf(batch);
      if (this.#heldBytes + chars <= this.#holdBound()) {
        this.#held.push({ day, batch });
        this.#heldBytes += chars;
        return;
      }
    }
    this.#writeBatch(day, batch);
  }

  /** Resolves when everything queued is written (or counted as dropped), within the caps. */
  async flush(): Promise<void> {
    for (let seen = this.#writing;; seen = this.#writing) {
      this.drain();
      this.#writeShed();
      this.drain();
      await this.#writing;
      if (!this.#compacting) this.#release();
      if (seen === this.#writing && this.#held.length === 0) return;
    }
  }

  /** Flush, then close the day file. */
  async close(): Promise<void> {
    await this.flush();
    this.#closeOpen();
  }

  /**
   * Write a batch in pieces that fit what the active segment has left, sealing it when full
   * (so that compaction, which takes whole sealed segments, drops the oldest lines first).
   */
  #writeBatch(day: string, batch: Queued[]): void {
    const { segmentBytes } = this.#options.caps;
    for (let at = 0; at < batch.length;) {
      const left = segmentBytes - this.#files.activeBytes(day);
      let end = at + 1;
      let chars = batch[at]!.text.length;
      while (end < batch.length && chars + batch[end]!.text.length <= left) {
        chars += batch[end++]!.text.length;
      }
      const waiting = this.#writePiece(day, batch.slice(at, end));
      if (this.#files.activeBytes(day) >= segmentBytes) this.#seal(day);
      if (waiting !== undefined) {
        // The rest waits, first in line, for the compaction to make room.
        const rest = batch.slice(at + waiting);
        this.#held.unshift({ day, batch: rest });
        this.#heldBytes += charsOf(rest);
        this.#startCompaction();
        return;
      }
      at = end;
    }
    if (
      this.#fresh &&
      (this.#overAtStart || overCap(this.#files, this.#options.caps, day, COMPACT_AT))
    ) {
      this.#startCompaction();
    }
    if (day !== this.#lastPruned) {
      this.#lastPruned = day;
      this.#after(() => this.#prune(day));
    }
  }

  /**
   * Write the lines of a piece that fit under the caps: past {@linkcode SHED_READS_AT} of a
   * cap read-only calls that succeeded do not, past the cap nothing does. The first line that
   * does not fit waits (its place is returned) when a compaction can make room and the held
   * lines stay in bounds; otherwise it is not written, and summed for a drop record.
   */
  #writePiece(day: string, piece: Queued[]): number | undefined {
    const whole = this.#encoder.encode(piece.map((each) => each.text).join(""));
    if (this.#room(day, whole.length, 0) === undefined) {
      this.#write(day, whole, kindBytes(piece));
      return undefined;
    }
    const kinds = KINDS.map(() => 0);
    const parts: Uint8Array[] = [];
    let size = 0;
    let waiting: number | undefined;
    for (const [i, each] of piece.entries()) {
      const bytes = this.#encoder.encode(each.text);
      const why = this.#room(day, size + bytes.length, each.kind);
      if (why === undefined) {
        parts.push(bytes);
        size += bytes.length;
        if (each.kind < kinds.length) kinds[each.kind]! += bytes.length;
      } else if (this.#canWait(charsOf(piece.slice(i)))) {
        waiting = i;
        break;
      } else {
        const shed = this.#shed.get(day) ?? noDrops();
        this.#shed.set(day, shed);
        if (each.call) addDropped(shed, each.call, bytes.length, why);
        if (each.drop) mergeDropped(shed, each.drop);
      }
    }
    if (size > 0) this.#write(day, concatBytes(parts), kinds);
    return waiting;
  }

  /** Whether lines may wait for room: a compaction runs or could free something, within bounds. */
  #canWait(chars: number): boolean {
    return (this.#compacting || this.#fresh) && this.#heldBytes + chars <= this.#holdBound();
  }

  #holdBound(): number {
    return Math.max(HOLD_BYTES, this.#options.caps.segmentBytes);
  }

  /** Which cap `extra` more bytes of a kind would pass, if any. */
  #room(day: string, extra: number, kind: number): string | undefined {
    const { caps } = this.#options;
    const share = kind === 0 ? SHED_READS_AT : 1;
    if (this.#files.dayBytes(day) + extra > caps.maxDayBytes * share) return "day_cap";
    if (this.#files.total + extra > caps.maxTotalBytes * share) return "total_cap";
    return undefined;
  }

  #write(day: string, data: Uint8Array, kinds: number[]): void {
    try {
      // One handle per day, kept open: opening the file for every batch cost more than the call.
      if (this.#open?.day !== day) {
        this.#closeOpen();
        const file = Deno.openSync(`${this.#files.dir}/${day}.jsonl`, {
          read: true,
          append: true,
          create: true,
        });
        const segment = this.#files.active(day);
        this.#open = { day, file, torn: !endsWithNewlineSync(file), segment };
      }
      // A line torn by a crash stays alone on its line: the first append of a day ends it.
      const bytes = this.#open.torn ? concatBytes([new Uint8Array([0x0a]), data]) : data;
      this.#open.torn = false;
      let offset = 0;
      while (offset < bytes.length) offset += this.#open.file.writeSync(bytes.subarray(offset));
      this.#files.appended(this.#open.segment, bytes.length, kinds);
    } catch {
      // The log must never break a call; a failed append loses only these lines.
      this.#closeOpen();
    }
  }

  /** Seal the day's active segment (a failure leaves it active; the log never breaks a call). */
  #seal(day: string): void {
    this.#closeOpen();
    try {
      this.#files.seal(day);
      this.#fresh = true;
    } catch {
      // written on as it is
    }
  }

  #closeOpen(): void {
    this.#open?.file.close();
    this.#open = undefined;
  }

  #after(task: () => Promise<void>): void {
    this.#writing = this.#writing.then(task).catch(() => {
      // The log must never break the host: a prune that failed is tried again the next day,
      // and a compaction catches its own failures (`#compact`).
    });
  }

  #startCompaction(): void {
    if (this.#compacting) return;
    this.#compacting = true;
    this.#after(() => this.#compact());
  }

  async #compact(): Promise<void> {
    this.#fresh = false;
    this.#overAtStart = false;
    try {
      if (!this.#compactedOnce) await this.#files.removeLeftovers();
      this.#compactedOnce = true;
      // Past days' active files are written no more (a late call starts a new one): seal them.
      for (const day of this.#files.days()) {
        const active = this.#files.segments(day).some((each) => each.seq === 0);
        if (active && day !== this.#open?.day) this.#files.seal(day);
      }
      const { caps, limits, now } = this.#options;
      await compact(this.#files, caps, limits, now);
    } catch {
      // The log must never break the host; what is held goes in as far as it fits.
    } finally {
      this.#compacting = false;
    }
    this.#release();
  }

  /** Write what was held, in order, until it has to wait for another compaction. */
  #release(): void {
    while (this.#held.length > 0 && !this.#compacting) {
      const { day, batch } = this.#held.shift()!;
      this.#heldBytes -= charsOf(batch);
      this.#writeBatch(day, batch);
    }
    this.#writeShed();
    this.drain();
  }

  /** Queue the drop records of calls not written (each goes to its day's file). */
  #writeShed(): void {
    const shed = [...this.#shed];
    this.#shed.clear();
    for (const [day, dropped] of shed) {
      const record = { ts: this.#options.now().toISOString(), day, dropped };
      this.enqueue(day, { text: `${JSON.stringify(record)}\n`, kind: KINDS.length, drop: dropped });
    }
  }

  async #prune(today: string): Promise<void> {
    const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - this.#options.retentionDays * DAY_MS)
      .toISOString().slice(0, 10);
    for (const day of this.#files.days()) {
      if (day >= oldest) continue;
      if (this.#open?.day === day) this.#closeOpen();
      await this.#files.removeDay(day);
    }
  }
}

/** Characters of a batch's lines (as many as bytes for ASCII: close enough for bounds). */
function charsOf(batch: readonly Queued[]): number {
  let chars = 0;
  for (const each of batch) chars += each.text.length;
  return chars;
}

/** Bytes of calls by kind in a batch (as characters: close enough to choose what to compact). */
function kindBytes(batch: readonly Queued[]): number[] {
  const kinds = KINDS.map(() => 0);
  for (const each of batch) if (each.kind < kinds.length) kinds[each.kind]! += each.text.length;
  return kinds;
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
