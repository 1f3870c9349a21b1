/**
 * A scope's source files and their words, for a resolver that takes only
 * the files that spell a name: the scope listed (the listing kept between
 * calls where it can be), the words of files new or changed since the word
 * index last read them learned, and the files that hold every word of a
 * name found. Language-neutral: a language gives its file names and how it
 * splits a text into words.
 *
 * @module
 */

import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { readTexts } from "../_text.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { type Listing, scopeListings } from "./_scope_listing.ts";
import { type WordIndex, wordIndex } from "./_word_index.ts";

/** Files read between two chances to yield. */
const BATCH = 16;

/** What a language tells {@linkcode ScopeWords}. */
export interface ScopeWordsOptions {
  /** Which file names are sources. */
  readonly source: RegExp;
  /** A source text's words. */
  readonly words: (text: string) => string[];
  /** The language, for progress (`Python`). */
  readonly language: string;
}

/** The words of a scope's source files. */
export class ScopeWords {
  #ctx: ToolContext;
  #scope: ResolvedPath;
  #skipped: Skipped;
  #options: ScopeWordsOptions;
  #words: WordIndex;
  /** The scope's source files by directory (kept between calls: read, never changed, here). */
  #listing: Listing = new Map();
  /** Why the scope's listing is not kept between calls, when it is not. */
  unkept: string | undefined;

  /**
   * The words of a scope (listed by {@linkcode ScopeWords.refresh}).
   *
   * @param ctx The tool context.
   * @param scope The checked directory.
   * @param skipped Counts files that could not be walked, read or decoded.
   * @param options The language's sources and words.
   */
  constructor(
    ctx: ToolContext,
    scope: ResolvedPath,
    skipped: Skipped,
    options: ScopeWordsOptions,
  ) {
    this.#ctx = ctx;
    this.#scope = scope;
    this.#skipped = skipped;
    this.#options = options;
    this.#words = wordIndex(ctx);
  }

  /** The scope's source files, by directory. */
  get listing(): Listing {
    return this.#listing;
  }

  /** How many source files the scope holds. */
  get count(): number {
    let count = 0;
    for (const entries of this.#listing.values()) count += entries.length;
    return count;
  }

  /** List the scope, learn the words of new and changed files, and save the word index. */
  async refresh(): Promise<void> {
    const source = this.#options.source;
    const listings = scopeListings(this.#ctx);
    const accept = (name: string) => source.test(name);
    const listed = await listings.list(this.#ctx, this.#scope, accept, this.#skipped);
    this.unkept = listings.unkept;
    this.#listing = listed.dirs;
    await this.#learnAll();
    if (listed.walked) {
      const seen = new Set<string>();
      for (const entries of listed.dirs.values()) for (const entry of entries) seen.add(entry.path);
      this.#words.prune(this.#scope.path, seen, accept);
    }
    this.#words.settle();
  }

  /**
   * The files under the scope that hold every word of one of these names.
   *
   * @param names Names.
   * @returns Their entries, by directory.
   */
  matching(names: readonly string[]): Map<string, DirEntry[]> {
    const holds = this.#words.matcher(names);
    const out = new Map<string, DirEntry[]>();
    for (const [dir, entries] of this.#listing) {
      const matched = entries.filter((entry) => {
        const words = this.#words.get(entry.path, entry.mtime?.getTime() ?? 0, entry.size);
        return words !== undefined && holds(words);
      });
      if (matched.length > 0) out.set(dir, matched);
    }
    return out;
  }

  /** Learn the words of the files new or changed since the word index last read them. */
  async #learnAll(): Promise<void> {
    let last = performance.now();
    let done = 0;
    for (const [dir, entries] of this.#listing) {
      const stale = entries.filter((entry) =>
        !this.#words.get(entry.path, entry.mtime?.getTime() ?? 0, entry.size)
      );
      for (let i = 0; i < stale.length; i += BATCH) {
        this.#learn(dir, stale.slice(i, i + BATCH));
        done += Math.min(BATCH, stale.length - i);
        if (!yieldDue(this.#ctx, last)) continue;
        const what = `Indexed the words of ${done} ${this.#options.language} files`;
        this.#ctx.progress(done, undefined, what);
        await yieldToWorker(this.#ctx.signal);
        last = performance.now();
      }
    }
  }

  /** Read files of one directory and keep their words. */
  #learn(dir: string, entries: readonly DirEntry[]): void {
    const ctx = this.#ctx;
    const limit = ctx.policy.limits.maxSearchFileBytes;
    const files = entries.map((entry) => ({
      name: entry.name,
      display: ctx.resolver.display(entry.path),
    }));
    const texts = readTexts(ctx, dir, files, { limit, skipped: this.#skipped });
    for (const [i, entry] of entries.entries()) {
      const text = texts[i];
      if (text === undefined) continue;
      this.#words.put(
        entry.path,
        entry.mtime?.getTime() ?? 0,
        entry.size,
        this.#options.words(text),
      );
    }
  }
}
