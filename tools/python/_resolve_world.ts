/**
 * The files one resolver call sees: the Python files under the scope that
 * hold the words of the symbol's name (the word index says which, reading a
 * file again only when its (mtime, size) moved; those taken are parsed once
 * per version), and, on demand, modules anywhere in the roots that imports
 * name. Directory listings are kept for the call, for module resolution.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { readTexts } from "../_text.ts";
import type { ToolContext } from "../tool.ts";
import type { PyFacts } from "./_resolve_facts.ts";
import { scopeListings } from "../symbols/_scope_listing.ts";
import { ScopeWords } from "../symbols/_scope_words.ts";
import { type PyIndex, pyIndex } from "./_resolve_index.ts";
import { PYTHON_FILE } from "./_scan.ts";
import { pythonWords } from "./_words.ts";

/** A Python file as one call sees it. */
export interface PyFile {
  /** The real absolute path. */
  readonly path: string;
  /** As shown to the model. */
  readonly display: string;
  /** What the resolver knows of it. */
  readonly facts: PyFacts;
}

/** How the word index reads Python. */
const PYTHON_WORDS = { source: PYTHON_FILE, words: pythonWords, language: "Python" };

/** Scopes being prepared in the background, by real path (a call on one waits for it). */
function preparing(ctx: ToolContext): Map<string, Promise<void>> {
  return ctx.shared("python-preparing", () => new Map<string, Promise<void>>());
}

/** The Python files of one call. */
export class PyWorld {
  /** The tool context. */
  readonly ctx: ToolContext;
  /** The scope: a real directory (or the one file it names). */
  readonly scope: ResolvedPath;
  /** The files under the scope that could name the call's symbol, in walk order. */
  readonly files: PyFile[] = [];
  #index: PyIndex;
  #words: ScopeWords;
  #skipped: Skipped;
  #taken = new Set<string>();
  #byPath = new Map<string, PyFile | null>();
  #listings = new Map<string, Map<string, DirEntry> | null>();
  /** Every name the call's files were taken by. */
  readonly names: string[] = [];
  /** The version (mtime, size) of every file the call read, by real path. */
  readonly read = new Map<string, readonly [number, number]>();

  private constructor(ctx: ToolContext, scope: ResolvedPath, skipped: Skipped) {
    this.ctx = ctx;
    this.#index = pyIndex(ctx);
    this.#words = new ScopeWords(ctx, scope, skipped, PYTHON_WORDS);
    this.scope = scope;
    this.#skipped = skipped;
  }

  /** Why the scope's listing is not kept between calls, when it is not. */
  get unkept(): string | undefined {
    return this.#words.unkept;
  }

  /** How many Python files the scope holds (all of them were searched, through their words). */
  get searched(): number {
    return this.scope.info?.isDirectory ? this.#words.count : this.files.length;
  }

  /**
   * List every Python file under a scope and learn the words of those new
   * or changed since the word index last read them; the caller then takes
   * its files ({@linkcode PyWorld.widen}, once the index is ready to parse).
   * A scope that is one file is that file, read at once.
   *
   * @param ctx The tool context.
   * @param scope The checked scope (a directory or a file).
   * @param skipped Counts files that could not be walked, read or decoded.
   * @returns The world.
   */
  static async open(ctx: ToolContext, scope: ResolvedPath, skipped: Skipped): Promise<PyWorld> {
    const world = new PyWorld(ctx, scope, skipped);
    if (!scope.info?.isDirectory) {
      await pyIndex(ctx).ready(ctx);
      const file = world.file(scope.path);
      if (file) world.files.push(file);
      return world;
    }
    await preparing(ctx).get(scope.path)?.catch(() => {});
    await world.#words.refresh();
    return world;
  }

  /**
   * Bring the word index of a scope up to date and watch it, then read back
   * into memory the kept facts of its files (the most recently parsed
   * first, as many as the memory budget holds): what the host does at start
   * for a root whose index exists, so that the first call finds it warm. A
   * call on the scope meanwhile waits for the first part, not the second.
   *
   * @param ctx The tool context.
   * @param scope The checked directory.
   * @param skipped Counts files that could not be walked, read or decoded.
   */
  static async prepare(ctx: ToolContext, scope: ResolvedPath, skipped: Skipped): Promise<void> {
    const world = new PyWorld(ctx, scope, skipped);
    const refreshed = world.#words.refresh();
    preparing(ctx).set(scope.path, refreshed);
    try {
      await refreshed;
    } finally {
      preparing(ctx).delete(scope.path);
    }
    const versions = new Map<string, DirEntry>();
    for (const entries of world.#words.listing.values()) {
      for (const entry of entries) versions.set(entry.path, entry);
    }
    await pyIndex(ctx).preload(ctx, (path) => versions.get(path));
  }

  /**
   * Take as the call's files those under the scope that hold every word of
   * one of these names and are not taken yet.
   *
   * @param names Names (aliases of the symbol, a new name a rename would bring in).
   * @returns How many files were added.
   */
  widen(names: readonly string[]): number {
    this.names.push(...names);
    let added = 0;
    for (const [dir, matched] of this.matching(names)) {
      const wanted = matched.filter((entry) => !this.#taken.has(entry.path));
      if (wanted.length === 0) continue;
      for (const entry of wanted) this.#taken.add(entry.path);
      for (const file of this.#read(dir, wanted)) {
        if (!file) continue;
        this.files.push(file);
        added++;
      }
    }
    return added;
  }

  /**
   * A Python file by real path: under the scope, or read now when it is
   * elsewhere in the roots (a module an import names).
   *
   * @param path The real path.
   * @returns The file, or `undefined` when it cannot be read.
   */
  file(path: string): PyFile | undefined {
    const known = this.#byPath.get(path);
    if (known !== undefined) return known ?? undefined;
    const dir = posix.dirname(path);
    const entry = this.entries(dir)?.get(posix.basename(path));
    const file = entry?.kind === "file" ? this.#read(dir, [entry])[0] : undefined;
    this.#byPath.set(path, file ?? null);
    return file;
  }

  /**
   * A directory's entries (cached for the call), when it lies inside the roots.
   *
   * @param dir A real directory path.
   * @returns Its entries by name, or `undefined` when it cannot be listed.
   */
  entries(dir: string): Map<string, DirEntry> | undefined {
    const known = this.#listings.get(dir);
    if (known !== undefined) return known ?? undefined;
    let listing: Map<string, DirEntry> | null = null;
    const kept = scopeListings(this.ctx).entries(this.scope.path, dir);
    if (kept) listing = new Map(kept.map((e) => [e.name, e]));
    else if (this.rootOf(dir) !== undefined) {
      try {
        listing = new Map(this.ctx.fs.list(dir, { sizes: true }).map((e) => [e.name, e]));
      } catch {
        // Not a directory, vanished or unreadable: no module lives there (an import of it
        // resolves as outside the project, which is what Python would find too).
        listing = null;
      }
    }
    this.#listings.set(dir, listing);
    return listing ?? undefined;
  }

  /**
   * The files under the scope that hold every word of one of these names.
   *
   * @param names Names.
   * @returns Their entries, by directory.
   */
  matching(names: readonly string[]): Map<string, DirEntry[]> {
    return this.#words.matching(names);
  }

  /**
   * A file's version now (mtime, size), as the call's listings see it.
   *
   * @param path A real path.
   * @returns The version, or `undefined` when it is no file there.
   */
  versionOf(path: string): readonly [number, number] | undefined {
    const entry = this.entries(posix.dirname(path))?.get(posix.basename(path));
    return entry?.kind === "file" ? [entry.mtime?.getTime() ?? 0, entry.size] : undefined;
  }

  /**
   * The directories the call listed (for modules), with what each holds.
   *
   * @returns Each directory and its entries, `null` when it could not be listed.
   */
  listed(): ReadonlyMap<string, ReadonlyMap<string, DirEntry> | null> {
    return this.#listings;
  }

  /**
   * The root that holds a path.
   *
   * @param path A real path.
   * @returns The root, or `undefined` when it is outside them.
   */
  rootOf(path: string): string | undefined {
    return this.ctx.policy.roots.find((root) => path === root || path.startsWith(`${root}/`));
  }

  /** Read the files of one directory that the index does not hold in this version. */
  #read(dir: string, entries: readonly DirEntry[]): Array<PyFile | undefined> {
    const out: Array<PyFile | undefined> = [];
    const stale: number[] = [];
    for (const [i, entry] of entries.entries()) {
      this.read.set(entry.path, [entry.mtime?.getTime() ?? 0, entry.size]);
      const facts = this.#index.cached(entry.path, entry.mtime?.getTime() ?? 0, entry.size);
      out.push(facts ? this.#remember(entry.path, facts) : undefined);
      if (!facts) stale.push(i);
    }
    if (stale.length === 0) return out;
    const limit = this.ctx.policy.limits.maxSearchFileBytes;
    const files = stale.map((i) => ({
      name: entries[i]!.name,
      display: this.ctx.resolver.display(entries[i]!.path),
    }));
    const texts = readTexts(this.ctx, dir, files, { limit, skipped: this.#skipped });
    for (const [j, i] of stale.entries()) {
      const text = texts[j];
      if (text !== undefined) out[i] = this.#parse(entries[i]!, files[j]!.display, text);
    }
    return out;
  }

  #parse(entry: DirEntry, display: string, text: string): PyFile | undefined {
    try {
      const facts = this.#index.add(entry.path, entry.mtime?.getTime() ?? 0, entry.size, text);
      return this.#remember(entry.path, facts);
    } catch (error) {
      this.#skipped.failed(display, error, this.ctx.logger);
      return undefined;
    }
  }

  #remember(path: string, facts: PyFacts): PyFile {
    const file = { path, display: this.ctx.resolver.display(path), facts };
    this.#byPath.set(path, file);
    return file;
  }
}
