/**
 * Which words each source file holds: the index that lets a symbol resolver
 * parse only the files that could name a symbol. A site of `Message` spells
 * `Message` (in code, in an import, in an `__all__` string), so a file whose
 * text never holds that word has no site of it; the resolver parses the
 * files that do (and the modules their imports name), not the whole scope.
 *
 * A word is a run of identifier characters (Unicode `ID_Continue`): every
 * identifier of Python or TS/JS is one word or, around `$`, several, so a
 * name's words are all in every file that spells it. Which of a file's words
 * are kept is its language's choice (Python keeps those of code and of
 * name-valued strings, `tools/python/_words.ts`). The index is kept per
 * file by (real path, mtime, size): a file is read again only when either
 * moved. It lives in memory per worker, and on disk in the state directory
 * ({@linkcode WORD_INDEX_FILE}), so that a restart reads it back instead of
 * reading every file. It is read and written only in a state directory the
 * host made its own (`security/state_marker.ts`); one the host does not trust
 * has it set aside with the rest of its state (`host/state/state_dir.ts`).
 *
 * @module
 */

import { isOwnStateDir } from "../../security/state_marker.ts";
import type { ToolContext } from "../tool.ts";
import { readWholeFileSync } from "../_whole_file.ts";
import { decodeIndex, Dictionary, encodeIndex, type WordEntry } from "./_word_index_file.ts";
import { WORD_INDEX_FILE } from "./state_names.ts";

export type { WordEntry };

/** The least time between two saves (a change since is saved by the next call after it). */
const SAVE_EVERY_MS = 5_000;

/** A run of identifier characters. */
const WORD = /[\p{ID_Continue}\u200c\u200d]+/gu;

/** What {@linkcode WordIndex.save} found to do. */
export type SaveOutcome = "saved" | "unchanged" | "failed";

/**
 * The words of a text (each once).
 *
 * @param text Any text.
 * @returns Its words.
 * @example
 * ```ts
 * import { wordsOf } from "./_word_index.ts";
 * wordsOf("core.$ZodType(x)"); // ["core", "ZodType", "x"]
 * ```
 */
export function wordsOf(text: string): string[] {
  return [...new Set(text.match(WORD) ?? [])];
}

/** Files' words, by real path and version; loaded from and saved to one file. */
export class WordIndex {
  #words = new Dictionary();
  #files = new Map<string, WordEntry>();
  #changed = false;
  #path: string | undefined;
  #loaded = false;
  #savedAt = -Infinity;

  /** @param path Where it is kept between runs (`undefined`: in memory only). */
  constructor(path?: string) {
    this.#path = path;
  }

  /** How many files it holds. */
  get size(): number {
    this.#load();
    return this.#files.size;
  }

  /**
   * A file's entry, when it holds this version.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @returns The entry, or `undefined` when the file is new or changed.
   */
  get(path: string, mtime: number, size: number): WordEntry | undefined {
    this.#load();
    const entry = this.#files.get(path);
    return entry && entry.mtime === mtime && entry.size === size ? entry : undefined;
  }

  /**
   * Record a file's version and its words.
   *
   * @param path The real path.
   * @param mtime Its modification time (ms).
   * @param size Its size.
   * @param words The words a site of a symbol could be among (its language says which).
   * @returns The entry.
   */
  put(path: string, mtime: number, size: number, words: readonly string[]): WordEntry {
    this.#load();
    const ids = [...new Set(words)].map((word) => this.#words.idOf(word));
    const sorted = Uint32Array.from(ids).sort();
    const entry = { mtime, size, ids: sorted, from: 0, to: sorted.length };
    this.#files.set(path, entry);
    this.#changed = true;
    return entry;
  }

  /**
   * Forget files under a directory that a walk of it no longer found.
   *
   * @param dir A real directory path.
   * @param seen The real paths the walk found.
   * @param walked Which file names the walk looked for (another language's files are not its).
   */
  prune(dir: string, seen: ReadonlySet<string>, walked: (name: string) => boolean): void {
    this.#load();
    const prefix = `${dir}/`;
    for (const path of this.#files.keys()) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      if (path.startsWith(prefix) && !seen.has(path) && walked(name)) {
        this.#files.delete(path);
        this.#changed = true;
      }
    }
  }

  /**
   * A test for "holds every word of one of these names".
   *
   * @param names Names (a symbol's name and its aliases).
   * @returns The test; a name with a word no file holds passes no file.
   */
  matcher(names: readonly string[]): (entry: WordEntry) => boolean {
    this.#load();
    const wanted = names.map((name) => wordsOf(name).map((word) => this.#words.find(word)));
    const known = wanted.filter((ids): ids is number[] => ids.every((id) => id !== undefined));
    return (entry) => known.some((ids) => ids.every((id) => holds(entry, id)));
  }

  /**
   * Write the index to its file when it changed (atomically: a new file
   * renamed over the old).
   *
   * @returns What happened; a failure leaves the old file, and the index in memory, as they were.
   */
  save(): SaveOutcome {
    if (!this.#changed || this.#path === undefined) return "unchanged";
    const temporary = `${this.#path}.${crypto.randomUUID()}.tmp`;
    try {
      Deno.writeFileSync(temporary, encodeIndex(this.#words, this.#files), { mode: 0o600 });
      Deno.renameSync(temporary, this.#path);
      this.#changed = false;
      return "saved";
    } catch {
      try {
        Deno.removeSync(temporary);
      } catch {
        // Never written.
      }
      return "failed";
    }
  }

  /**
   * Save when it changed and the last save is {@linkcode SAVE_EVERY_MS} old:
   * a first build is saved at once, a stream of edits at most that often.
   *
   * @returns What happened.
   */
  settle(): SaveOutcome {
    if (performance.now() - this.#savedAt < SAVE_EVERY_MS) return "unchanged";
    const outcome = this.save();
    if (outcome === "saved") this.#savedAt = performance.now();
    return outcome;
  }

  /** Read the file once, at first use; one that is missing or unreadable is started afresh. */
  #load(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    if (this.#path === undefined) return;
    let bytes: Uint8Array;
    try {
      bytes = readWholeFileSync(this.#path);
    } catch {
      return;
    }
    const decoded = decodeIndex(bytes);
    if (!decoded) return;
    this.#words = decoded.words;
    this.#files = decoded.files;
  }
}

/** Whether a file's ascending ids hold one. */
function holds({ ids, from, to }: WordEntry, id: number): boolean {
  let low = from;
  let high = to - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = ids[middle]!;
    if (at === id) return true;
    if (at < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/**
 * The worker's word index, kept in the state directory.
 *
 * @param ctx The tool context.
 * @returns The shared instance.
 */
export function wordIndex(ctx: ToolContext): WordIndex {
  return ctx.shared("symbol-word-index", () => {
    // Kept on disk only in a state directory the host made its own: a shipped one is not read.
    const own = isOwnStateDir(ctx.policy.stateDir);
    return new WordIndex(own ? `${ctx.policy.stateDir}/${WORD_INDEX_FILE}` : undefined);
  });
}
