/**
 * One scope's listing kept between calls, and the kernel's word on when it
 * changed (inotify, through `Deno.watchFs`: every directory the walks
 * listed, one each, never recursive, and the state directory).
 *
 * Two things could hide a change, and neither may:
 * - A change made just before a call, not yet reported: each call first
 *   makes a new file in the state directory ({@linkcode WatchedScope.barrier})
 *   and waits for every watcher to report it. One inotify queue keeps its
 *   events in order, so by then every change made before the call has been
 *   reported.
 * - A report dropped: Deno 2.9 hands events over through a bounded queue
 *   (`runtime/ops/fs_events.rs`), drops what comes while it is full (the
 *   worker sleeps between calls: 2,000 changes at once overflowed it here)
 *   and says so with a `rescan` event, as the kernel does of its own queue.
 *   Either makes the next call walk the scope again.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { ToolContext } from "../tool.ts";

/** The longest wait for the watchers to report the call's own file. */
const BARRIER_MS = 2_000;

/** Names whose change alters what a walk lists. */
const IGNORE_FILES = new Set([".gitignore", ".ignore"]);

/** One watcher: its own channel, read by {@linkcode follow}. */
interface Watch {
  watcher: Deno.FsWatcher;
  /** The barrier waited for: its file, and what its report does. */
  waiting?: { path: string; arrived: () => void } | undefined;
}

/** A scope's source files as last listed, and what changed since. */
export class WatchedScope {
  /** The source files, by real path. */
  files = new Map<string, DirEntry>();
  /** Whole listings (with sizes) of directories unchanged since listed. */
  listings = new Map<string, DirEntry[]>();
  /** Directories whose known files changed: to list again. */
  dirty = new Set<string>();
  /** Walk again (a new file or directory, a lost report). */
  stale = false;
  /** The files by directory, until one changes. */
  byDir: ReadonlyMap<string, readonly DirEntry[]> | undefined;
  /** Every directory watched (the state directory apart). */
  readonly dirs = new Set<string>();
  /** The watchers: the first walk's, and one for the directories each later walk found new. */
  #watches: Watch[] = [];
  #ctx: ToolContext;
  #accept: (name: string) => boolean;
  #marker: string;
  #barriers = 0;

  /**
   * @param ctx The tool context of the call that first walked the scope.
   * @param accept Which file names are sources.
   */
  constructor(ctx: ToolContext, accept: (name: string) => boolean) {
    this.#ctx = ctx;
    this.#accept = accept;
    this.#marker = `${ctx.policy.stateDir}/.symbol-sync-${crypto.randomUUID()}-`;
  }

  /**
   * Watch the directories not watched yet.
   *
   * @param dirs Directories a walk listed.
   * @throws {Error} When the kernel refuses (its limit on watches, a directory gone).
   */
  watch(dirs: ReadonlySet<string>): void {
    const fresh = [...dirs].filter((dir) => !this.dirs.has(dir));
    if (fresh.length === 0 && this.#watches.length > 0) return;
    // The state directory first: Deno checks an event's path against each watched one in turn.
    const watcher = Deno.watchFs([this.#ctx.policy.stateDir, ...fresh], { recursive: false });
    for (const dir of fresh) this.dirs.add(dir);
    const watch: Watch = { watcher };
    this.#watches.push(watch);
    void this.#follow(watch);
  }

  /**
   * Wait until every watcher has reported everything changed before now.
   *
   * @returns False when one could not (then walk).
   */
  async barrier(): Promise<boolean> {
    const path = `${this.#marker}${this.#barriers++}`;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const arrivals = this.#watches.map((watch) =>
      new Promise<boolean>((resolve) => {
        timers.push(setTimeout(() => resolve(false), BARRIER_MS));
        watch.waiting = { path, arrived: () => resolve(true) };
      })
    );
    let reported = false;
    try {
      Deno.writeFileSync(path, new Uint8Array());
      reported = (await Promise.all(arrivals)).every(Boolean);
    } catch (error) {
      this.#ctx.logger.warn("The symbol index could not mark its state directory", error);
    }
    for (const timer of timers) clearTimeout(timer);
    for (const watch of this.#watches) watch.waiting = undefined;
    Deno.remove(path).catch(() => {});
    return reported;
  }

  /** Stop watching. */
  close(): void {
    for (const { watcher } of this.#watches) {
      try {
        watcher.close();
      } catch { /* Closed when its stream ended. */ }
    }
  }

  /** Read one watcher until it closes, noting what each change makes stale. */
  async #follow(watch: Watch): Promise<void> {
    try {
      for await (const event of watch.watcher) {
        if (event.flag === "rescan") this.stale = true;
        for (const path of event.paths) this.#note(watch, path);
      }
    } catch {
      // The watcher failed: walk next time.
    }
    this.stale = true;
    watch.waiting?.arrived();
  }

  /** What one changed path means for the listing. */
  #note(watch: Watch, path: string): void {
    if (path === watch.waiting?.path) return watch.waiting.arrived();
    const state = this.#ctx.policy.stateDir;
    if (path === state || path.startsWith(`${state}/`)) return;
    const dir = posix.dirname(path);
    this.listings.delete(dir);
    const name = posix.basename(path);
    if (this.files.has(path)) this.dirty.add(dir);
    else if (this.#accept(name) || this.dirs.has(path) || IGNORE_FILES.has(name)) this.stale = true;
    else if (isDirectory(path)) this.stale = true;
  }
}

/** Whether a new entry is a directory (a walk must list it); gone or unreadable: no. */
function isDirectory(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
}
