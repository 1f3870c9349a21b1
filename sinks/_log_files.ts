/**
 * The files of the interaction log and what they hold, kept as running
 * counters so that the writer never scans the directory. A UTC day is
 * written to `<day>.jsonl` (its active segment); once that passes a
 * segment's size it is sealed as `<day>.<n>.jsonl` (n grows with each
 * seal), and only sealed segments are ever rewritten (compacted) or
 * removed. Readers open a day's files at once and read what they held
 * then, whatever happens to them meanwhile.
 *
 * @module
 */

/** A day file's name: `<day>.jsonl` (active) or `<day>.<n>.jsonl` (sealed). */
const SEGMENT = /^(\d{4}-\d{2}-\d{2})(?:\.(\d+))?\.jsonl$/;

/** How a compaction's output is named until it takes its place (never a day file's name). */
export const COMPACTING = ".compacting";

/** One file of the log. */
export interface Segment {
  /** Its UTC day. */
  readonly day: string;
  /** 0 for the day's active segment, else its place among the sealed ones (older is lower). */
  readonly seq: number;
  /** Its size. */
  bytes: number;
  /** Bytes of calls by kind (read, failed, write), when known: this process wrote or compacted it. */
  kinds: number[] | undefined;
  /** Every call of a kind below this was dropped from it (0: never compacted). */
  level: number;
}

/** An open file of the log, as a reader sees it. */
export interface OpenSegment {
  /** Its UTC day. */
  readonly day: string;
  /** The open file. */
  readonly file: Deno.FsFile;
  /** Its size when opened (what the reader reads). */
  readonly bytes: number;
}

/**
 * A segment's file name.
 *
 * @param day Its UTC day.
 * @param seq 0 for the active segment.
 * @returns The name.
 */
export function segmentName(day: string, seq: number): string {
  return seq === 0 ? `${day}.jsonl` : `${day}.${seq}.jsonl`;
}

/** The log's files, their sizes and their order. */
export class LogFiles {
  /** The folder. */
  readonly dir: string;
  #segments = new Map<string, Segment>();
  #days = new Map<string, number>();
  #total = 0;
  #generation = 0;

  /**
   * Take stock of the folder (once).
   *
   * @param dir The folder, made when missing.
   */
  constructor(dir: string) {
    this.dir = dir;
    Deno.mkdirSync(dir, { recursive: true });
    for (const entry of Deno.readDirSync(dir)) {
      const match = SEGMENT.exec(entry.name);
      if (!match || !entry.isFile) continue;
      const bytes = Deno.statSync(`${dir}/${entry.name}`).size;
      this.#put({ day: match[1]!, seq: Number(match[2] ?? 0), bytes, kinds: undefined, level: 0 });
    }
  }

  /** Remove what a compaction cut short by a crash left (the writer, before its first one). */
  async removeLeftovers(): Promise<void> {
    for await (const entry of Deno.readDir(this.dir)) {
      if (entry.name.endsWith(COMPACTING)) {
        await Deno.remove(`${this.dir}/${entry.name}`).catch(() => {
          // Already gone, or left for the next start: readers skip these names.
        });
      }
    }
  }

  /** Bytes in all the log's files. */
  get total(): number {
    return this.#total;
  }

  /** Changes whenever a file is sealed, replaced or removed. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Bytes in one day's files.
   *
   * @param day The UTC day.
   */
  dayBytes(day: string): number {
    return this.#days.get(day) ?? 0;
  }

  /** The days that have files, oldest first. */
  days(): string[] {
    return [...this.#days.keys()].sort();
  }

  /**
   * The segments of a day, oldest first (the active one last).
   *
   * @param day The UTC day.
   */
  segments(day: string): Segment[] {
    return [...this.#segments.values()].filter((each) => each.day === day)
      .sort((a, b) => order(a) - order(b));
  }

  /**
   * Bytes in a day's active segment.
   *
   * @param day The UTC day.
   */
  activeBytes(day: string): number {
    return this.#segments.get(segmentName(day, 0))?.bytes ?? 0;
  }

  /**
   * The day's active segment (made on first use).
   *
   * @param day The UTC day.
   */
  active(day: string): Segment {
    const name = segmentName(day, 0);
    return this.#segments.get(name) ??
      this.#put({ day, seq: 0, bytes: 0, kinds: [0, 0, 0], level: 0 });
  }

  /**
   * Count bytes added to a day's files (its active segment, or a compaction's output
   * before that replaces its inputs).
   *
   * @param day The UTC day.
   * @param bytes The bytes.
   */
  grow(day: string, bytes: number): void {
    this.#total += bytes;
    this.#days.set(day, this.dayBytes(day) + bytes);
  }

  /**
   * Count an append to a day's active segment.
   *
   * @param segment The active segment.
   * @param bytes The bytes appended.
   * @param kinds Of which, bytes of calls by kind.
   */
  appended(segment: Segment, bytes: number, kinds: readonly number[]): void {
    this.grow(segment.day, bytes);
    segment.bytes += bytes;
    const known = segment.kinds;
    if (known) kinds.forEach((each, i) => (known[i] = (known[i] ?? 0) + each));
  }

  /**
   * Seal a day's active segment: it becomes the newest sealed one.
   *
   * @param day The UTC day (its active file must be closed).
   */
  seal(day: string): void {
    const name = segmentName(day, 0);
    const active = this.#segments.get(name);
    if (!active) return;
    const seq = Math.max(0, ...this.segments(day).map((each) => each.seq)) + 1;
    Deno.renameSync(`${this.dir}/${name}`, `${this.dir}/${segmentName(day, seq)}`);
    this.#segments.delete(name);
    this.#segments.set(segmentName(day, seq), { ...active, seq });
    this.#generation++;
  }

  /**
   * Put a compaction's output in place of its inputs (all at once).
   *
   * @param inputs The sealed segments compacted, oldest first; the output takes the first one's place.
   * @param output The output's temporary path, size, bytes by kind and level.
   * @param counted Bytes of the output already counted by {@linkcode LogFiles.grow}.
   */
  replace(
    inputs: readonly Segment[],
    output: { path: string; bytes: number; kinds: number[]; level: number },
    counted: number,
  ): void {
    const first = inputs[0]!;
    const name = segmentName(first.day, first.seq);
    Deno.renameSync(output.path, `${this.dir}/${name}`);
    for (const each of inputs.slice(1)) {
      Deno.removeSync(`${this.dir}/${segmentName(each.day, each.seq)}`);
    }
    for (const each of inputs) this.#drop(each);
    this.grow(first.day, output.bytes - counted);
    this.#segments.set(name, {
      ...first,
      bytes: output.bytes,
      kinds: output.kinds,
      level: output.level,
    });
    this.#generation++;
  }

  /**
   * Remove every file of a day (retention).
   *
   * @param day The UTC day.
   */
  async removeDay(day: string): Promise<void> {
    for (const each of this.segments(day)) {
      await Deno.remove(`${this.dir}/${segmentName(day, each.seq)}`).catch(() => {
        // Already gone; one left behind is older than retention and removed at the next prune.
      });
      this.#drop(each);
    }
    this.#generation++;
  }

  /**
   * Open the files of some days, as they are now (retried while they change under it).
   *
   * @param wanted Whether a UTC day is wanted.
   * @returns The open files, oldest day first, oldest first within a day; and how many could
   *   not be opened.
   */
  async open(
    wanted: (day: string) => boolean,
  ): Promise<{ files: OpenSegment[]; unreadable: number }> {
    for (let attempt = 0;; attempt++) {
      const generation = this.#generation;
      const names: Array<{ name: string; day: string; seq: number }> = [];
      for await (const entry of Deno.readDir(this.dir)) {
        const match = SEGMENT.exec(entry.name);
        if (match && wanted(match[1]!)) {
          names.push({ name: entry.name, day: match[1]!, seq: Number(match[2] ?? 0) });
        }
      }
      names.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : order(a) - order(b)));
      const files: OpenSegment[] = [];
      let unreadable = 0;
      for (const { name, day } of names) {
        try {
          const file = await Deno.open(`${this.dir}/${name}`, { read: true });
          files.push({ day, file, bytes: (await file.stat()).size });
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) unreadable++;
        }
      }
      if (generation === this.#generation || attempt >= 3) return { files, unreadable };
      for (const each of files) each.file.close();
    }
  }

  #put(segment: Segment): Segment {
    this.#segments.set(segmentName(segment.day, segment.seq), segment);
    this.grow(segment.day, segment.bytes);
    return segment;
  }

  #drop(segment: Segment): void {
    this.#segments.delete(segmentName(segment.day, segment.seq));
    this.#total -= segment.bytes;
    const left = this.dayBytes(segment.day) - segment.bytes;
    const more = [...this.#segments.values()].some((each) => each.day === segment.day);
    if (left <= 0 && !more) this.#days.delete(segment.day);
    else this.#days.set(segment.day, left);
  }
}

/** Sealed segments by number, the active one last. */
function order(segment: { seq: number }): number {
  return segment.seq === 0 ? Number.MAX_SAFE_INTEGER : segment.seq;
}
