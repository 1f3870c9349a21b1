/**
 * What a resolver derived from a file (its facts: scopes, bindings, imports,
 * references), kept on disk in the state directory between runs, so that
 * the first call after a restart reads back the facts of the files it needs
 * instead of parsing them again: as JSON (each resolver's codec says how),
 * the facts of CPython's `test_email.py` read back in 13.5 ms where parsing
 * them took 237.
 *
 * One file per source file, named by a hash of its real path: a header line
 * (the format, the path, the version (mtime, size), the sections' names and
 * byte lengths), each section of the facts as one line of JSON, then the
 * source text as it is. A record whose path or version differs is a miss, and
 * so is one whose lengths do not add up (cut short). A section is parsed, and
 * the text decoded, only when the resolver first asks for it: the first call
 * after a restart reads the records of the 300 files of 20,000 that spell
 * `Message`, and most of what they hold (the text, every call and most
 * attribute accesses) is never looked at for one symbol.
 *
 * The folder is bounded ({@linkcode FACTS_BYTES}): past it, the oldest
 * records go. A state directory the host does not trust has the folder set
 * aside with the rest of its state.
 *
 * @module
 */

import { readWholeFileSync } from "../_whole_file.ts";
import { BoundedFolder } from "./_bounded_folder.ts";
import {
  decodeRecord,
  encodeRecord,
  type FactsSections,
  type StoredSections,
} from "./_facts_record.ts";

export type { FactsSections, StoredSections };

/** The most bytes the folder keeps. */
export const FACTS_BYTES = 256 * 1024 * 1024;

/** How one resolver's facts are written in sections and read back. */
export interface FactsCodec<F> {
  /** Facts in sections. */
  write(facts: F): FactsSections;
  /** The facts again, from a record of what {@linkcode FactsCodec.write} made. */
  read(stored: StoredSections): F;
}

/** Facts on disk, by real path and version. */
export class FactsStore<F> {
  #dir: string;
  #kind: string;
  #codec: FactsCodec<F>;
  #folder: BoundedFolder;

  /**
   * @param dir The folder (made at the first write).
   * @param kind Which resolver's facts (part of each record's name).
   * @param codec How its facts are written and read.
   * @param budget The most bytes kept.
   */
  constructor(dir: string, kind: string, codec: FactsCodec<F>, budget: number = FACTS_BYTES) {
    this.#dir = dir;
    this.#kind = kind;
    this.#codec = codec;
    this.#folder = new BoundedFolder(dir, budget);
  }

  /**
   * A file's facts, when a record of this version is kept.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @returns The facts, or `undefined`.
   */
  load(path: string, mtime: number, size: number): F | undefined {
    const saved = this.#read(this.#recordOf(path));
    const same = saved?.path === path && saved.mtime === mtime && saved.size === size;
    return same ? saved.facts : undefined;
  }

  /**
   * Keep a file's facts (atomically: a new record renamed over the old).
   * A failure is not the call's: the facts are only not kept.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @param facts Plain data (maps, arrays, strings, numbers).
   */
  save(path: string, mtime: number, size: number, facts: F): void {
    const bytes = encodeRecord(path, mtime, size, this.#codec.write(facts));
    this.#folder.write(this.#recordOf(path), bytes);
  }

  /**
   * The kept records, the most recently written first, each read when asked for.
   *
   * @yields Each record's path, version and facts (records that do not read back are passed over).
   */
  *recent(): Generator<{ path: string; mtime: number; size: number; facts: F }> {
    for (const record of this.#folder.paths().reverse()) {
      const saved = this.#read(record);
      if (saved) yield saved;
    }
  }

  /** A record's content, when it reads back whole and in this format. */
  #read(record: string): { path: string; mtime: number; size: number; facts: F } | undefined {
    let bytes: Uint8Array;
    try {
      bytes = readWholeFileSync(record);
    } catch {
      // Gone or unreadable: a miss.
      return undefined;
    }
    const decoded = decodeRecord(bytes);
    if (!decoded) return undefined;
    const { header: { path, mtime, size }, stored } = decoded;
    return { path, mtime, size, facts: this.#codec.read(stored) };
  }

  #recordOf(path: string): string {
    return `${this.#dir}/${this.#kind}-${hashOf(path)}`;
  }
}

/**
 * Two 32-bit FNV-1a hashes of a string (two offsets), in hex: a record's
 * name (its path inside says whose it is).
 *
 * @param text A real path.
 * @returns 16 hex digits.
 */
export function hashOf(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
  return `${hex(a)}${hex(b)}`;
}
