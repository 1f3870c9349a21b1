/**
 * The files one resolver call sees: every Python file under the scope (read
 * only when its (mtime, size) changed since the index last parsed it), and,
 * on demand, modules elsewhere in the roots that imports name. Directory
 * listings are kept for the call, for module resolution.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { readTexts } from "../_text.ts";
import { walk } from "../_walk.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import type { PyFacts } from "./_resolve_facts.ts";
import type { PyIndex } from "./_resolve_index.ts";
import { PYTHON_FILE } from "./_scan.ts";

/** Files read (and parsed) between two chances to yield. */
const BATCH = 16;

/** A Python file as one call sees it. */
export interface PyFile {
  /** The real absolute path. */
  readonly path: string;
  /** As shown to the model. */
  readonly display: string;
  /** What the resolver knows of it. */
  readonly facts: PyFacts;
}

/** The Python files of one call. */
export class PyWorld {
  /** The tool context. */
  readonly ctx: ToolContext;
  /** The scope: a real directory (or the one file it names). */
  readonly scope: ResolvedPath;
  /** The files under the scope, in walk order. */
  readonly files: PyFile[] = [];
  #index: PyIndex;
  #skipped: Skipped;
  #byPath = new Map<string, PyFile | null>();
  #listings = new Map<string, Map<string, DirEntry> | null>();

  private constructor(ctx: ToolContext, index: PyIndex, scope: ResolvedPath, skipped: Skipped) {
    this.ctx = ctx;
    this.#index = index;
    this.scope = scope;
    this.#skipped = skipped;
  }

  /**
   * Read (or find in the index) every Python file under a scope.
   *
   * @param ctx The tool context.
   * @param index The worker's index.
   * @param scope The checked scope (a directory or a file).
   * @param skipped Counts files that could not be walked, read or decoded.
   * @returns The world.
   */
  static async open(
    ctx: ToolContext,
    index: PyIndex,
    scope: ResolvedPath,
    skipped: Skipped,
  ): Promise<PyWorld> {
    await index.ready(ctx);
    const world = new PyWorld(ctx, index, scope, skipped);
    if (!scope.info?.isDirectory) {
      const file = world.file(scope.path);
      if (file) world.files.push(file);
      return world;
    }
    const dirs = new Map<string, string[]>();
    const relevant = (name: string) => PYTHON_FILE.test(name);
    for await (const entry of walk(ctx, scope, { filesOnly: true, skipped, relevant })) {
      if (!PYTHON_FILE.test(entry.name)) continue;
      const dir = posix.dirname(entry.path);
      dirs.set(dir, [...(dirs.get(dir) ?? []), entry.name]);
    }
    await world.#readAll(dirs);
    return world;
  }

  async #readAll(dirs: Map<string, string[]>): Promise<void> {
    let last = performance.now();
    let done = 0;
    for (const [dir, names] of dirs) {
      const listing = this.entries(dir);
      const entries = names.map((name) => listing?.get(name)).filter((e): e is DirEntry => !!e);
      for (let i = 0; i < entries.length; i += BATCH) {
        for (const file of this.#read(dir, entries.slice(i, i + BATCH))) {
          if (file) this.files.push(file);
        }
        done += Math.min(BATCH, entries.length - i);
        if (!yieldDue(this.ctx, last)) continue;
        this.ctx.progress(done, undefined, `Indexed ${done} Python files`);
        await yieldToWorker(this.ctx.signal);
        last = performance.now();
      }
    }
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
    if (this.rootOf(dir) !== undefined) {
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
