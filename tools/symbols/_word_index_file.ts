/**
 * The word index's file: a magic line; the lengths of a JSON header (each
 * file's path, mtime, size and word count) and of the words (joined by
 * newlines: a word id is its line); the header; the words; and every file's
 * word ids as little-endian 32-bit numbers, 4-aligned. A file that does not
 * read back whole and consistent is ignored (the index starts afresh), never
 * half-used.
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
  /** The ids of its words, ascending. */
  readonly words: Uint32Array;
}

const MAGIC = "toolhost-words 1\n";

/** One file in the header: path, mtime, size, how many word ids. */
type FileRow = [string, number, number, number];

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
  const rows: FileRow[] = [];
  let count = 0;
  for (const [path, entry] of files) {
    rows.push([path, entry.mtime, entry.size, entry.words.length]);
    count += entry.words.length;
  }
  const header = new TextEncoder().encode(JSON.stringify(rows));
  const joined = new TextEncoder().encode(words.joined());
  const magic = new TextEncoder().encode(MAGIC);
  const start = align(magic.length + 8 + header.length + joined.length);
  const out = new Uint8Array(start + count * 4);
  out.set(magic);
  new DataView(out.buffer).setUint32(magic.length, header.length, true);
  new DataView(out.buffer).setUint32(magic.length + 4, joined.length, true);
  out.set(header, magic.length + 8);
  out.set(joined, magic.length + 8 + header.length);
  const ids = new Uint32Array(out.buffer, start, count);
  let at = 0;
  for (const entry of files.values()) {
    ids.set(entry.words, at);
    at += entry.words.length;
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
  if (bytes.length < magic.length + 8 || !magic.every((byte, i) => bytes[i] === byte)) {
    return undefined;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [headerBytes, wordBytes] = [0, 4].map((at) => view.getUint32(magic.length + at, true));
  const wordsAt = magic.length + 8 + headerBytes!;
  const start = align(wordsAt + wordBytes!);
  if (start > bytes.length || (bytes.length - start) % 4 !== 0) return undefined;
  let rows: unknown;
  let joined: string;
  try {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    rows = JSON.parse(decoder.decode(bytes.subarray(magic.length + 8, wordsAt)));
    joined = decoder.decode(bytes.subarray(wordsAt, wordsAt + wordBytes!));
  } catch {
    return undefined;
  }
  if (!isRows(rows) || (joined !== "" && !joined.endsWith("\n"))) return undefined;
  const copy = bytes.slice(start);
  const ids = new Uint32Array(copy.buffer, 0, copy.length / 4);
  let wordCount = 0;
  for (let i = wordsAt; i < wordsAt + wordBytes!; i++) if (bytes[i] === 10) wordCount++;
  const files = new Map<string, WordEntry>();
  let at = 0;
  for (const [path, mtime, size, count] of rows) {
    if (at + count > ids.length) return undefined;
    const words = ids.subarray(at, at + count);
    if (!ascending(words, wordCount)) return undefined;
    files.set(path, { mtime, size, words });
    at += count;
  }
  return at === ids.length ? { words: new Dictionary(joined), files } : undefined;
}

/** Whether ids ascend strictly, each below `end`. */
function ascending(ids: Uint32Array, end: number): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return ids.length === 0 || ids[ids.length - 1]! < end;
}

function align(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}

function isRows(files: unknown): files is FileRow[] {
  return Array.isArray(files) &&
    files.every((row) =>
      Array.isArray(row) && row.length === 4 && typeof row[0] === "string" &&
      row.slice(1).every((n) => Number.isSafeInteger(n) && n >= 0)
    );
}
