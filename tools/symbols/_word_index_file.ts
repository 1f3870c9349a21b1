/**
 * The word index's file: a magic line; how many files, and the lengths of
 * their paths (each ended by a NUL) and of the words (each ended by a
 * newline: a word id is its line); the paths; the words; then, 8-aligned
 * and little-endian, each file's mtime and size (64-bit floats), how many
 * word ids it has and every file's word ids (32-bit). A file that does not
 * read back whole and consistent is ignored (the index starts afresh), never
 * half-used. Read back, the numbers stay where they lie (20,000 files: no
 * JSON to parse, no array per file).
 *
 * The words stay one string until a new word needs an id: the standard
 * library's 93,000 words took 50-90 ms to parse as JSON here, more than the
 * rest of a warm call.
 *
 * @module
 */

/** One file as the index holds it. */
export interface WordEntry {
  /** Modification time (ms) when read. */
  readonly mtime: number;
  /** Size in bytes when read. */
  readonly size: number;
  /** The array the ids of its words lie in, ascending from `from` to `to` (the files read back share one). */
  readonly ids: Uint32Array;
  /** Where its ids start. */
  readonly from: number;
  /** Where its ids end. */
  readonly to: number;
}

const MAGIC = "toolhost-words 2\n";

/** Words and their ids (an id is the word's place, from 0). */
export class Dictionary {
  /** Every word, each followed by a newline; the words are listed only once a new one comes. */
  #joined: string;
  #words: string[] | undefined;
  #ids: Map<string, number> | undefined;
  /** Words looked up before the list was made, with their ids (or -1). */
  #found = new Map<string, number>();

  /** @param joined The words, each followed by a newline. */
  constructor(joined = "") {
    this.#joined = joined;
  }

  /** How many words. */
  get size(): number {
    return this.#list().length;
  }

  /**
   * A word's id, when it has one.
   *
   * @param word A word.
   * @returns Its id, or `undefined`.
   */
  find(word: string): number | undefined {
    if (this.#ids) return this.#ids.get(word);
    const at = `\n${this.#joined}`.indexOf(`\n${word}\n`);
    if (at < 0) return undefined;
    let id = 0;
    for (
      let i = this.#joined.indexOf("\n");
      i >= 0 && i < at;
      i = this.#joined.indexOf("\n", i + 1)
    ) id++;
    return id;
  }

  /**
   * A word's id, given one when it is new.
   *
   * @param word A word (no newline in it).
   * @returns Its id.
   */
  idOf(word: string): number {
    const words = this.#list();
    this.#ids ??= new Map(words.map((each, id) => [each, id]));
    let id = this.#ids.get(word);
    if (id === undefined) {
      id = words.length;
      words.push(word);
      this.#ids.set(word, id);
    }
    return id;
  }

  /** The words, each followed by a newline. */
  joined(): string {
    return this.#words ? this.#words.map((word) => `${word}\n`).join("") : this.#joined;
  }

  #list(): string[] {
    this.#words ??= this.#joined === "" ? [] : this.#joined.slice(0, -1).split("\n");
    return this.#words;
  }
}

/**
 * The bytes of an index.
 *
 * @param words Every word.
 * @param files Each file's entry, by real path.
 * @returns The file's bytes.
 */
export function encodeIndex(words: Dictionary, files: ReadonlyMap<string, WordEntry>): Uint8Array {
  const encoder = new TextEncoder();
  const magic = encoder.encode(MAGIC);
  const paths = encoder.encode([...files.keys()].map((path) => `${path}\0`).join(""));
  const joined = encoder.encode(words.joined());
  const count = files.size;
  const layout = layoutOf(magic.length, count, paths.length, joined.length);
  let idCount = 0;
  for (const entry of files.values()) idCount += entry.to - entry.from;
  const out = new Uint8Array(layout.ids + idCount * 4);
  out.set(magic);
  const view = new DataView(out.buffer);
  [count, paths.length, joined.length].forEach((n, i) =>
    view.setUint32(magic.length + i * 4, n, true)
  );
  out.set(paths, layout.paths);
  out.set(joined, layout.words);
  const mtimes = new Float64Array(out.buffer, layout.mtimes, count);
  const sizes = new Float64Array(out.buffer, layout.sizes, count);
  const counts = new Uint32Array(out.buffer, layout.counts, count);
  const ids = new Uint32Array(out.buffer, layout.ids, idCount);
  let i = 0;
  let at = 0;
  for (const entry of files.values()) {
    mtimes[i] = entry.mtime;
    sizes[i] = entry.size;
    counts[i++] = entry.to - entry.from;
    ids.set(entry.ids.subarray(entry.from, entry.to), at);
    at += entry.to - entry.from;
  }
  return out;
}

/**
 * Read an index back.
 *
 * @param bytes The file's bytes.
 * @returns The words and files, or `undefined` when the bytes are not a whole, consistent index.
 */
export function decodeIndex(
  bytes: Uint8Array,
): { words: Dictionary; files: Map<string, WordEntry> } | undefined {
  const magic = new TextEncoder().encode(MAGIC);
  if (bytes.length < magic.length + 12 || !magic.every((byte, i) => bytes[i] === byte)) {
    return undefined;
  }
  // The numbers are read where they lie when the bytes start 8-aligned (a fresh read), else copied.
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [count, pathBytes, wordBytes] = [0, 4, 8].map((at) =>
    view.getUint32(magic.length + at, true)
  ) as [number, number, number];
  const layout = layoutOf(magic.length, count, pathBytes, wordBytes);
  if (layout.ids > bytes.length || (bytes.length - layout.ids) % 4 !== 0) return undefined;
  let paths: string[];
  let joined: string;
  try {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    paths = decoder.decode(bytes.subarray(layout.paths, layout.words)).split("\0");
    joined = decoder.decode(bytes.subarray(layout.words, layout.words + wordBytes));
  } catch {
    return undefined;
  }
  if (paths.length !== count + 1 || paths.pop() !== "") return undefined;
  if (joined !== "" && !joined.endsWith("\n")) return undefined;
  const at = (offset: number) => bytes.byteOffset + offset;
  const mtimes = new Float64Array(bytes.buffer, at(layout.mtimes), count);
  const sizes = new Float64Array(bytes.buffer, at(layout.sizes), count);
  const counts = new Uint32Array(bytes.buffer, at(layout.counts), count);
  const ids = new Uint32Array(bytes.buffer, at(layout.ids), (bytes.length - layout.ids) / 4);
  let wordCount = 0;
  for (let i = 0; i < joined.length; i++) if (joined.charCodeAt(i) === 10) wordCount++;
  const files = new Map<string, WordEntry>();
  let from = 0;
  for (let i = 0; i < count; i++) {
    const to = from + counts[i]!;
    const [mtime, size] = [mtimes[i]!, sizes[i]!];
    if (to > ids.length || !ascending(ids, from, to, wordCount)) return undefined;
    if (!Number.isSafeInteger(mtime) || !Number.isSafeInteger(size) || size < 0) return undefined;
    files.set(paths[i]!, { mtime, size, ids, from, to });
    from = to;
  }
  return from === ids.length ? { words: new Dictionary(joined), files } : undefined;
}

/** Where each part of an index starts: the numbers 8-aligned. */
function layoutOf(
  magic: number,
  count: number,
  pathBytes: number,
  wordBytes: number,
): { paths: number; words: number; mtimes: number; sizes: number; counts: number; ids: number } {
  const paths = magic + 12;
  const words = paths + pathBytes;
  const mtimes = Math.ceil((words + wordBytes) / 8) * 8;
  const sizes = mtimes + count * 8;
  const counts = sizes + count * 8;
  const ids = Math.ceil((counts + count * 4) / 4) * 4;
  return { paths, words, mtimes, sizes, counts, ids };
}

/** Whether `ids[from..to)` ascend strictly, each below `end`. */
function ascending(ids: Uint32Array, from: number, to: number, end: number): boolean {
  for (let i = from + 1; i < to; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return to === from || ids[to - 1]! < end;
}
