/**
 * The source files under a scope, with their mtime and size, kept per worker
 * between calls while nothing says they changed (`_scope_watch.ts`): a warm
 * `find_usages` on a 20,000-file project must not walk and stat 20,000 files.
 * A changed file that the listing holds has its directory listed again at
 * the next call; a new source file, a new or removed directory, an ignore
 * file changed or a report that may have been lost make the next call walk
 * the scope again.
 *
 * Watching that cannot start (no state directory to write, the kernel's
 * limit on watches) leaves the listing unkept: every call walks, and says why.
 *
 * Each walk's listing is also kept on disk (`_scope_saved.ts`): the first
 * call after a restart watches the directories it names, then checks it
 * (one `lstat` per directory and source file) instead of walking.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { walk } from "../_walk.ts";
import type { ToolContext } from "../tool.ts";
import { checkScope, type ListedDir, loadScope, savedDirs, saveScope } from "./_scope_saved.ts";
import { WatchedScope } from "./_scope_watch.ts";

/** Scopes kept per worker (each with its watchers); the least recently used goes first. */
const KEPT_SCOPES = 4;

/** The files of a scope, by directory. */
export type Listing = ReadonlyMap<string, readonly DirEntry[]>;

/** What {@linkcode ScopeListings.list} found. */
export interface Listed {
  /** The files by directory. */
  readonly dirs: Listing;
  /** Whether it was made anew (walked, or the last run's checked): files may have gone since the last call. */
  readonly walked: boolean;
  /** Whether it is the last run's listing, checked (`_scope_saved.ts`). */
  readonly restored?: boolean;
}

/** The worker's kept listings. */
export class ScopeListings {
  #kept = new Map<string, WatchedScope>();
  #unkept: string | undefined;

  /** Why listings are not kept, when they are not (each call walks). */
  get unkept(): string | undefined {
    return this.#unkept;
  }

  /**
   * A directory's whole listing (with sizes), when a kept scope listed it and
   * nothing in it changed since.
   *
   * @param scope The scope's real path.
   * @param dir A real directory path.
   * @returns The entries, or `undefined`.
   */
  entries(scope: string, dir: string): readonly DirEntry[] | undefined {
    return this.#kept.get(scope)?.listings.get(dir);
  }

  /**
   * The source files under a scope (a directory), walked as the file tools walk.
   *
   * @param ctx The tool context.
   * @param scope The checked directory.
   * @param accept Which file names are sources (one filter per caller: the key with the scope).
   * @param skipped Counts what could not be walked.
   * @returns Each directory's source files, with sizes and mtimes.
   */
  async list(
    ctx: ToolContext,
    scope: ResolvedPath,
    accept: (name: string) => boolean,
    skipped: Skipped,
  ): Promise<Listed> {
    let kept = this.#kept.get(scope.path);
    if (kept) {
      this.#kept.delete(scope.path);
      this.#kept.set(scope.path, kept);
    }
    if (kept && await kept.barrier() && !kept.stale) {
      for (const dir of kept.dirty) relist(ctx, dir, { kept, accept });
      kept.dirty.clear();
      kept.byDir ??= byDir(kept.files);
      return { dirs: kept.byDir, walked: false };
    }
    // What changes from here on is for the next call to see.
    if (kept) Object.assign(kept, { stale: false, dirty: new Set() });
    else {
      kept = this.#restore(ctx, scope.path, accept);
      if (kept?.byDir) return { dirs: kept.byDir, walked: true, restored: true };
    }
    const listedAt = Date.now();
    const walked = await walkScope(ctx, scope, accept, skipped);
    // Watched before the files are listed: a change from here on is reported.
    kept = this.#watch(ctx, scope.path, kept ?? new WatchedScope(ctx, accept), walked.dirs);
    const { files, listings, dirs } = listAll(ctx, scope.path, walked, accept);
    const listed = byDir(files);
    if (!kept) return { dirs: listed, walked: true };
    Object.assign(kept, { files, listings, byDir: listed });
    // A source file the walk did not see came meanwhile, unreported: walk again next time.
    if (dirs === undefined) kept.stale = true;
    else saveScope(ctx, scope.path, listedAt, dirs);
    return { dirs: listed, walked: true };
  }

  /**
   * The listing kept on disk by the last run, watched and checked; else
   * (with its directories watched when that worked) none.
   */
  #restore(
    ctx: ToolContext,
    scope: string,
    accept: (name: string) => boolean,
  ): WatchedScope | undefined {
    const saved = loadScope(ctx, scope);
    if (!saved) return undefined;
    const kept = new WatchedScope(ctx, accept);
    try {
      kept.watch(savedDirs(saved));
    } catch {
      // A directory it names is gone: the walk says what there is now.
      kept.close();
      return undefined;
    }
    const restored = checkScope(ctx, saved, accept);
    if (restored) {
      const { files, listings } = restored;
      Object.assign(kept, { files, listings, byDir: byDir(files) });
    }
    return this.#watch(ctx, scope, kept, new Set());
  }

  /** Stop watching every kept scope, and keep none. */
  close(): void {
    for (const kept of this.#kept.values()) kept.close();
    this.#kept.clear();
  }

  /** Watch a scope's new directories and keep it (on failure, say why and keep nothing). */
  #watch(
    ctx: ToolContext,
    path: string,
    kept: WatchedScope,
    dirs: ReadonlySet<string>,
  ): WatchedScope | undefined {
    try {
      kept.watch(dirs);
    } catch (error) {
      this.#unkept = `the files are listed anew at each call: cannot watch them (${error})`;
      kept.close();
      this.#kept.delete(path);
      ctx.logger.warn("The symbol index cannot watch the files", error);
      return undefined;
    }
    this.#unkept = undefined;
    this.#kept.set(path, kept);
    for (const [old, each] of this.#kept) {
      if (this.#kept.size <= KEPT_SCOPES) break;
      each.close();
      this.#kept.delete(old);
    }
    return kept;
  }
}

/** What a walk of a scope found. */
interface Walked {
  /** Its directories, in walk order (a parent before its children). */
  dirs: Set<string>;
  /** Its source files' names, by directory. */
  names: Map<string, Set<string>>;
  /** Every name each directory held when walked. */
  seen: Map<string, Set<string>>;
}

/** Walk a scope: its directories, and its source files' names by directory. */
async function walkScope(
  ctx: ToolContext,
  scope: ResolvedPath,
  accept: (name: string) => boolean,
  skipped: Skipped,
): Promise<Walked> {
  const dirs = new Set<string>([scope.path]);
  const names = new Map<string, Set<string>>();
  const seen = new Map<string, Set<string>>();
  const listed = (dir: string, entries: readonly DirEntry[]) =>
    seen.set(dir, new Set(entries.map((entry) => entry.name)));
  for await (const entry of walk(ctx, scope, { skipped, relevant: accept, listed })) {
    if (entry.kind === "directory") dirs.add(entry.path);
    else if (accept(entry.name)) {
      const dir = posix.dirname(entry.path);
      names.set(dir, (names.get(dir) ?? new Set()).add(entry.name));
    }
  }
  return { dirs, names, seen };
}

/**
 * List every walked directory with sizes (parents first, so each one's mtime
 * is seen before it is listed): its source files, its whole listing, and
 * what is kept on disk — none when a source file appeared that the walk did
 * not see, or a directory's mtime could not be read.
 */
function listAll(
  ctx: ToolContext,
  scope: string,
  walked: Walked,
  accept: (name: string) => boolean,
): {
  files: Map<string, DirEntry>;
  listings: Map<string, DirEntry[]>;
  dirs: Map<string, ListedDir> | undefined;
} {
  const files = new Map<string, DirEntry>();
  const listings = new Map<string, DirEntry[]>();
  let dirs: Map<string, ListedDir> | undefined = new Map();
  const mtimes = new Map([[scope, ctx.fs.peek(scope)?.mtime?.getTime()]]);
  for (const dir of walked.dirs) {
    const listing = listDir(ctx, dir);
    listings.set(dir, listing);
    const wanted = walked.names.get(dir) ?? new Set();
    const seen = walked.seen.get(dir);
    for (const entry of listing) {
      if (entry.kind === "directory") mtimes.set(entry.path, entry.mtime?.getTime());
      if (entry.kind !== "file" || !accept(entry.name)) continue;
      if (wanted.has(entry.name)) files.set(entry.path, entry);
      else if (!seen?.has(entry.name)) dirs = undefined;
    }
    const mtime = mtimes.get(dir);
    if (mtime === undefined) dirs = undefined;
    else dirs?.set(dir, { mtime, entries: listing, sources: [...wanted] });
  }
  return { files, listings, dirs };
}

/** List one kept directory again: its known files' new sizes and mtimes, and which are gone. */
function relist(
  ctx: ToolContext,
  dir: string,
  { kept, accept }: { kept: WatchedScope; accept: (name: string) => boolean },
): void {
  const listing = listDir(ctx, dir);
  kept.listings.set(dir, listing);
  kept.byDir = undefined;
  const now = new Map(listing.map((entry) => [entry.path, entry]));
  for (const path of [...kept.files.keys()]) {
    if (posix.dirname(path) !== dir) continue;
    const entry = now.get(path);
    if (entry?.kind === "file" && accept(entry.name)) kept.files.set(path, entry);
    else kept.files.delete(path);
  }
}

function listDir(ctx: ToolContext, dir: string): DirEntry[] {
  try {
    return ctx.fs.list(dir, { sizes: true });
  } catch {
    // Gone or unreadable since the walk: none of its files can be read either.
    return [];
  }
}

function byDir(files: ReadonlyMap<string, DirEntry>): Listing {
  const out = new Map<string, DirEntry[]>();
  for (const [path, entry] of files) {
    const dir = posix.dirname(path);
    const list = out.get(dir);
    if (list) list.push(entry);
    else out.set(dir, [entry]);
  }
  return out;
}

/**
 * The worker's kept listings.
 *
 * @param ctx The tool context.
 * @returns The shared instance.
 */
export function scopeListings(ctx: ToolContext): ScopeListings {
  return ctx.shared("symbol-scope-listings", () => new ScopeListings());
}
