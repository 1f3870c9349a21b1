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
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { walk } from "../_walk.ts";
import type { ToolContext } from "../tool.ts";
import { WatchedScope } from "./_scope_watch.ts";

/** Scopes kept per worker (each with its watchers); the least recently used goes first. */
const KEPT_SCOPES = 4;

/** The files of a scope, by directory. */
export type Listing = ReadonlyMap<string, readonly DirEntry[]>;

/** What {@linkcode ScopeListings.list} found. */
export interface Listed {
  /** The files by directory. */
  readonly dirs: Listing;
  /** Whether the scope was walked for it (files may have gone since the last call). */
  readonly walked: boolean;
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
      for (const dir of kept.dirty) relist(ctx, kept, dir, accept);
      kept.dirty.clear();
      kept.byDir ??= byDir(kept.files);
      return { dirs: kept.byDir, walked: false };
    }
    // What changes from here on is for the next call to see.
    if (kept) Object.assign(kept, { stale: false, dirty: new Set() });
    const { dirs, names } = await walkScope(ctx, scope, accept, skipped);
    // Watched before the files are listed: a change from here on is reported.
    kept = this.#watch(ctx, scope.path, kept ?? new WatchedScope(ctx, accept), dirs);
    const files = new Map<string, DirEntry>();
    const listings = new Map<string, DirEntry[]>();
    for (const [dir, wanted] of names) {
      const listing = listDir(ctx, dir);
      listings.set(dir, listing);
      for (const entry of listing) {
        if (entry.kind === "file" && wanted.has(entry.name)) files.set(entry.path, entry);
      }
    }
    const listed = byDir(files);
    if (kept) Object.assign(kept, { files, listings, byDir: listed });
    return { dirs: listed, walked: true };
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

/** Walk a scope: its directories, and its source files' names by directory. */
async function walkScope(
  ctx: ToolContext,
  scope: ResolvedPath,
  accept: (name: string) => boolean,
  skipped: Skipped,
): Promise<{ dirs: Set<string>; names: Map<string, Set<string>> }> {
  const dirs = new Set<string>([scope.path]);
  const names = new Map<string, Set<string>>();
  for await (const entry of walk(ctx, scope, { skipped, relevant: accept })) {
    if (entry.kind === "directory") dirs.add(entry.path);
    else if (accept(entry.name)) {
      const dir = posix.dirname(entry.path);
      names.set(dir, (names.get(dir) ?? new Set()).add(entry.name));
    }
  }
  return { dirs, names };
}

/** List one kept directory again: its known files' new sizes and mtimes, and which are gone. */
function relist(
  ctx: ToolContext,
  kept: WatchedScope,
  dir: string,
  accept: (name: string) => boolean,
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
