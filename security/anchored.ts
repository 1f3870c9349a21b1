/**
 * File operations on a checked directory that catch a path component being
 * swapped (for a symlink to outside) between the check and the use.
 *
 * Deno has no `openat`, and every Deno file API turns a relative path into an
 * absolute one before the system call (so even `chdir` does not pin a
 * directory), and its permission checks follow symlinks that sit inside an
 * allowed directory. So each operation here:
 *
 * 1. records the identity (device, inode) of every directory from the root
 *    down to the checked directory, refusing symlinks (`lstat`);
 * 2. opens or creates by absolute path;
 * 3. checks the opened file against `lstat` of its name (a symlink swapped in
 *    as the last component is caught) and the chain again, *before* any
 *    content is returned or written, and once more after a rename.
 *
 * A swap is therefore caught unless it happens and is undone again inside the
 * few microseconds between two checks; what a swap can still do is create an
 * empty temp file outside. Closing that window needs `openat2` with
 * `RESOLVE_BENEATH`, which Deno does not offer without FFI.
 *
 * This file holds the directory guard and its checks; the verified open and
 * read are in `anchored_open.ts`, the atomic write in `anchored_write.ts`.
 *
 * @module
 */

import { ToolError } from "./errors.ts";
import type { NativeFs } from "./native_fs.ts";

/** A checked directory while an operation runs in it. */
export interface DirGuard {
  /** The directory's real absolute path. */
  readonly dir: string;
  /**
   * The absolute path of a name in the directory.
   *
   * @param name One path segment.
   */
  path(name: string): string;
  /**
   * Check that no directory from the root down was swapped since the start.
   *
   * @throws {ToolError} `path_denied` when one was.
   */
  verify(): void;
  /**
   * Whether the kernel confines this thread to the roots (Landlock): then a
   * swap cannot reach outside, and the chain is verified once per operation
   * (before and after) rather than around every file.
   */
  readonly confined: boolean;
  /** libc's calls, in a confined worker ({@linkcode NativeFs}); otherwise Deno's. */
  readonly native: NativeFs | undefined;
  /**
   * `lstat` of a name in the directory (through libc in a confined worker).
   *
   * @param name One path segment.
   * @throws What `Deno.lstatSync` throws.
   */
  lstat(name: string): Deno.FileInfo;
}

type Identity = readonly [number, number];

/**
 * Runs operations in checked directories of the roots.
 *
 * @example
 * ```ts
 * const anchor = new Anchor(policy.roots);
 * const names = anchor.within("/srv/project/src", (guard) => [...Deno.readDirSync(guard.dir)]);
 * ```
 */
export class Anchor {
  #roots: readonly string[];
  #confined: boolean;
  #native: NativeFs | undefined;

  /**
   * Operations in the checked directories of these roots.
   *
   * @param roots The roots (real paths): their own paths are trusted.
   * @param confined Whether Landlock confines the calling thread to the roots.
   * @param native libc's calls, for a thread that Landlock confines: the
   *   checks and the open go through them, each falling back to Deno's call
   *   when it fails.
   */
  constructor(roots: readonly string[], confined = false, native?: NativeFs) {
    this.#roots = roots;
    this.#confined = confined;
    this.#native = confined ? native : undefined;
  }

  /**
   * Run `fn` on a checked directory, verifying its chain before and after.
   *
   * @param dir A real absolute directory path that the resolver checked.
   * @param fn Synchronous work given a guard.
   * @returns What `fn` returns (discarded if the chain changed meanwhile).
   * @throws {ToolError} `path_denied` when a directory was swapped.
   */
  within<T>(dir: string, fn: (guard: DirGuard) => T): T {
    const chain = this.#chain(dir);
    const native = this.#native;
    const identities = () => chain.map((path) => identity(path, native));
    const before = identities();
    const path = (name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);
    const guard: DirGuard = {
      dir,
      confined: this.#confined,
      native,
      path,
      lstat: (name) => lstat(path(name), native),
      verify: () => {
        const now = identities();
        for (let i = 0; i < now.length; i++) {
          if (now[i]![0] !== before[i]![0] || now[i]![1] !== before[i]![1]) throw swapped(dir);
        }
      },
    };
    const result = fn(guard);
    guard.verify();
    return result;
  }

  /**
   * `lstat` of a path that is not acted on (a cheap "is it unchanged?"), or
   * `undefined` when that fails.
   *
   * @param path An absolute path.
   * @returns What it is.
   */
  peek(path: string): Deno.FileInfo | undefined {
    try {
      return lstat(path, this.#native);
    } catch {
      // Gone or not reachable: the caller goes through the resolver, which says which.
      return undefined;
    }
  }

  /** The directories from below the root down to `dir`. */
  #chain(dir: string): string[] {
    const root = this.#roots.find((each) =>
      dir === each || dir.startsWith(each.endsWith("/") ? each : `${each}/`)
    );
    if (root === undefined) throw swapped(dir);
    const chain = [root];
    let path = root;
    for (const part of dir.slice(root.length).split("/").filter((p) => p !== "")) {
      path = path.endsWith("/") ? `${path}${part}` : `${path}/${part}`;
      chain.push(path);
    }
    return chain;
  }
}

function identity(path: string, native: NativeFs | undefined): Identity {
  let info: Deno.FileInfo;
  try {
    info = lstat(path, native);
  } catch (error) {
    throw swapped(path, error);
  }
  if (!info.isDirectory || info.isSymlink) throw swapped(path);
  return [info.dev, info.ino ?? 0];
}

/** `lstat` through libc when there is a native call, else (or when it fails) through Deno. */
function lstat(path: string, native: NativeFs | undefined): Deno.FileInfo {
  return native?.lstat(path) ?? Deno.lstatSync(path);
}

/**
 * The name holds exactly this regular file, and the directory chain is
 * unchanged just before and just after that is seen: a file opened through a
 * swapped directory can only pass if the swap is made and undone twice
 * between three consecutive system calls. Under Landlock a swap cannot
 * reach outside the roots, and the chain checks of {@linkcode Anchor.within}
 * (before the operation and after it, before its result is used) suffice.
 *
 * @param guard The directory guard.
 * @param name One path segment.
 * @param info `fstat` of the file opened by that name.
 * @throws {ToolError} `path_denied` when the name or the chain was swapped.
 */
export function sameFile(guard: DirGuard, name: string, info: Deno.FileInfo): void {
  if (!guard.confined) guard.verify();
  let link: Deno.FileInfo;
  try {
    link = lstat(guard.path(name), guard.native);
  } catch (error) {
    throw swapped(name, error);
  }
  if (!link.isFile || !info.isFile || link.ino !== info.ino || link.dev !== info.dev) {
    throw swapped(name);
  }
  if (!guard.confined) guard.verify();
}

/**
 * A `path_denied` error for a path that changed between the check and the use.
 *
 * @param name What changed.
 * @param cause The underlying error, for the log.
 * @returns The error.
 */
export function swapped(name: string, cause?: unknown): ToolError {
  return new ToolError(
    "path_denied",
    `"${name}" changed while it was being used (a path component was swapped); try again`,
    { cause },
  );
}
