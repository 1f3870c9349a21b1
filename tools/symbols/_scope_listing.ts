/**
 * The source files under a scope, with their mtime and size, kept per worker
 * between calls while nothing says they changed: a warm `find_usages` on a
 * 20,000-file project must not walk and stat 20,000 files.
 *
 * What says so is the kernel: after a walk, the worker watches (inotify,
 * through `Deno.watchFs`, one directory each, never recursive) every
 * directory the walk listed, and the state directory. A changed file that
 * the listing holds has its directory listed again at the next call; a new
 * source file, a new or removed directory, an ignore file changed or an
 * overflowed queue make the next call walk the scope again.
 *
 * A change made just before a call is not lost to a slow event: each call
 * first makes a new file in the state directory and waits for the watcher to
 * report it. One inotify queue keeps its events in order, so by then every
 * change made before the call has been reported. A watcher that
 * cannot start (no state directory to write, the kernel's limit on watches)
 * leaves the listing unkept: every call walks, and says why.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { Skipped } from "../_skipped.ts";
import { walk } from "../_walk.ts";
import type { ToolContext } from "../tool.ts";

/** Scopes kept per worker (each with its watcher); the least recently used goes first. */
const KEPT_SCOPES = 4;

/** The longest wait for the watcher to report the call's own file. */
const BARRIER_MS = 2_000;

/** Names whose change alters what a walk lists. */
const IGNORE_FILES = new Set([".gitignore", ".ignore"]);

/** The files of a scope, by directory. */
export type Listing = ReadonlyMap<string, readonly DirEntry[]>;

/** What {@linkcode ScopeListings.list} found. */
export interface Listed {
  /** The files by directory. */
  readonly dirs: Listing;
  /** Whether the scope was walked for it (files may have gone since the last call). */
  readonly walked: boolean;
}

/** One scope's kept listing. */
interface Kept {
  files: Map<string, DirEntry>;
  dirs: Set<string>;
  /** Whole listings (with sizes) of directories unchanged since listed. */
  listings: Map<string, DirEntry[]>;
  /** Directories to list again. */
  dirty: Set<string>;
  /** The files by directory, until one changes. */
  byDir?: Listing | undefined;
  /** Walk again. */
  stale: boolean;
  watcher: Deno.FsWatcher;
  /** Where the barriers' files are made (a number is added to each). */
  marker: string;
  barriers: number;
  /** The barrier waited for: its file, and what its event does. */
  waiting?: { path: string; arrived: () => void } | undefined;
}

/** The worker's kept listings. */
export class ScopeListings {
  #kept = new Map<string, Kept>();
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
    const kept = this.#kept.get(scope.path);
    if (kept && await this.#barrier(ctx, kept) && !kept.stale) {
      this.#kept.delete(scope.path);
      this.#kept.set(scope.path, kept);
      for (const dir of kept.dirty) relist(ctx, kept, dir, accept);
      kept.dirty.clear();
      kept.byDir ??= byDir(kept.files);
      return { dirs: kept.byDir, walked: false };
    }
    if (kept) this.#forget(scope.path, kept);
    const walked = await walkScope(ctx, scope, accept, skipped);
    return { dirs: this.#keep(ctx, scope.path, walked, accept), walked: true };
  }

  /** Watch what a walk found (on failure, say why and keep nothing); its files by directory. */
  #keep(
    ctx: ToolContext,
    path: string,
    walked: Walked,
    accept: (name: string) => boolean,
  ): Listing {
    const dirs = byDir(walked.files);
    const marker = `${ctx.policy.stateDir}/.symbol-sync-${crypto.randomUUID()}-`;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs([...walked.dirs, ctx.policy.stateDir], { recursive: false });
    } catch (error) {
      this.#unkept = `the files are listed anew at each call: cannot watch them (${error})`;
      return dirs;
    }
    this.#unkept = undefined;
    const kept: Kept = {
      ...walked,
      dirty: new Set(),
      byDir: dirs,
      stale: false,
      watcher,
      marker,
      barriers: 0,
    };
    this.#kept.set(path, kept);
    void follow(ctx, kept, accept);
    for (const [old, each] of this.#kept) {
      if (this.#kept.size <= KEPT_SCOPES) break;
      this.#forget(old, each);
    }
    return dirs;
  }

  /** Wait until the watcher has reported everything changed before now; false when it cannot. */
  async #barrier(ctx: ToolContext, kept: Kept): Promise<boolean> {
    const path = `${kept.marker}${kept.barriers++}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), BARRIER_MS);
      kept.waiting = { path, arrived: () => resolve(true) };
    });
    try {
      Deno.writeFileSync(path, new Uint8Array());
    } catch (error) {
      ctx.logger.warn("The symbol index could not mark its state directory", error);
      kept.waiting = undefined;
      clearTimeout(timer);
      return false;
    }
    const reported = await arrived;
    clearTimeout(timer);
    kept.waiting = undefined;
    Deno.remove(path).catch(() => {});
    return reported;
  }

  #forget(path: string, kept: Kept): void {
    this.#kept.delete(path);
    try {
      kept.watcher.close();
    } catch { /* Closed when its stream ended. */ }
  }
}

/** What a walk found. */
interface Walked {
  files: Map<string, DirEntry>;
  dirs: Set<string>;
  listings: Map<string, DirEntry[]>;
}

/** Walk a scope and list its source files' directories with sizes. */
async function walkScope(
  ctx: ToolContext,
  scope: ResolvedPath,
  accept: (name: string) => boolean,
  skipped: Skipped,
): Promise<Walked> {
  const dirs = new Set<string>([scope.path]);
  const names = new Map<string, Set<string>>();
  for await (const entry of walk(ctx, scope, { skipped, relevant: accept })) {
    if (entry.kind === "directory") dirs.add(entry.path);
    else if (accept(entry.name)) {
      const dir = posix.dirname(entry.path);
      names.set(dir, (names.get(dir) ?? new Set()).add(entry.name));
    }
  }
  const files = new Map<string, DirEntry>();
  const listings = new Map<string, DirEntry[]>();
  for (const [dir, wanted] of names) {
    const listing = listDir(ctx, dir);
    listings.set(dir, listing);
    for (const entry of listing) {
      if (entry.kind === "file" && wanted.has(entry.name)) files.set(entry.path, entry);
    }
  }
  return { files, dirs, listings };
}

/** List one kept directory again: its known files' new sizes and mtimes, and which are gone. */
function relist(ctx: ToolContext, kept: Kept, dir: string, accept: (name: string) => boolean) {
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

/** Read a scope's watcher until it closes, noting what each change makes stale. */
async function follow(ctx: ToolContext, kept: Kept, accept: (name: string) => boolean) {
  try {
    for await (const event of kept.watcher) {
      if (event.flag === "rescan") kept.stale = true;
      for (const path of event.paths) note(ctx, kept, path, accept);
    }
  } catch {
    // The watcher failed: walk next time.
  }
  kept.stale = true;
  kept.waiting?.arrived();
}

/** What one changed path means for the listing. */
function note(ctx: ToolContext, kept: Kept, path: string, accept: (name: string) => boolean) {
  if (path === kept.waiting?.path) return kept.waiting.arrived();
  const state = ctx.policy.stateDir;
  if (path === state || path.startsWith(`${state}/`)) return;
  kept.listings.delete(posix.dirname(path));
  const name = posix.basename(path);
  if (kept.files.has(path)) kept.dirty.add(posix.dirname(path));
  else if (accept(name) || kept.dirs.has(path) || IGNORE_FILES.has(name)) kept.stale = true;
  else if (isDirectory(path)) kept.stale = true;
}

/** Whether a new entry is a directory (a walk must list it); gone or unreadable: no. */
function isDirectory(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
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
