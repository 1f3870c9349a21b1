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
 * @module
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { ToolError } from "./errors.ts";
import { type NativeFs, O_CLOEXEC } from "./native_fs.ts";

/** An open file, for reading. */
export interface ReadableFile {
  /**
   * Read into a buffer.
   *
   * @param buffer Where the bytes go.
   * @returns How many were read (0 at the end).
   */
  readSync(buffer: Uint8Array): number | null;
  /** Close it (again is a no-op). */
  close(): void;
}

/** What an open returns: the open file and what it is. */
export interface OpenedFile {
  /** The open file; the caller closes it. */
  readonly file: ReadableFile;
  /** `fstat` of the open file. */
  readonly info: Deno.FileInfo;
}

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

/**
 * Open `name` in a guarded directory for reading, and check that what was
 * opened is the regular file the name holds now, in an unswapped directory.
 *
 * @param guard The directory guard.
 * @param name One path segment.
 * @param allowHardlinks Whether a file with several hard links may be opened.
 * @returns The open file and its `fstat`.
 * @throws {ToolError} `path_denied` when the name is not a regular file or was swapped.
 */
export function openVerified(guard: DirGuard, name: string, allowHardlinks: boolean): OpenedFile {
  const path = guard.path(name);
  const file = (guard.native && nativeOpen(guard.native, path)) ?? nodeOpen(path, name);
  try {
    const info = file.stat();
    sameFile(guard, name, info);
    if (!allowHardlinks && (info.nlink ?? 1) > 1) {
      throw new ToolError(
        "path_denied",
        `"${name}" has ${info.nlink} hard links; set "allowHardlinks": true in toolhost.json to use such files`,
      );
    }
    return { file, info };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** An open file that can say what it is (`fstat`). */
interface StatFile extends ReadableFile {
  stat(): Deno.FileInfo;
}

/** Open through `node:fs` (Deno's permission check included); errors as the tools say them. */
function nodeOpen(path: string, name: string): StatFile {
  let fd: number;
  try {
    // Never through a symlink, and never waiting on a FIFO or device swapped in since the check.
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EACCES" || code === "EPERM") {
      throw new ToolError("path_denied", `Cannot open "${name}": permission denied`, {
        cause: error,
      });
    }
    throw swapped(name, error);
  }
  return fdFile(
    () => fileInfo(fstatSync(fd)),
    (buffer) => readSync(fd, buffer),
    () => closeSync(fd),
  );
}

/**
 * Open through libc, with its `fstat`; `undefined` when either fails (the
 * caller then opens through `node:fs`, for the usual error). `node:fs` cannot
 * use a descriptor libc opened, so a read that fails here is an error of its own.
 */
function nativeOpen(native: NativeFs, path: string): StatFile | undefined {
  const fd = native.open(path, OPEN_FLAGS | O_CLOEXEC);
  if (fd < 0) return undefined;
  const info = native.fstat(fd);
  if (info === undefined) {
    native.close(fd);
    return undefined;
  }
  return fdFile(
    () => info,
    (buffer) => {
      const n = native.read(fd, buffer);
      if (n < 0) throw new Error(`read(2) of "${path}" failed`);
      return n;
    },
    () => native.close(fd),
  );
}

/** Read only, no symlink at the last component, no blocking open (of a FIFO). */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An open file descriptor as the reads here use it (closing again is a no-op). */
function fdFile(
  stat: () => Deno.FileInfo,
  read: (buffer: Uint8Array) => number,
  close: () => void,
): StatFile {
  let open = true;
  return {
    stat,
    readSync: read,
    close: () => {
      if (open) close();
      open = false;
    },
  };
}

/** `lstat` through libc when there is a native call, else (or when it fails) through Deno. */
function lstat(path: string, native: NativeFs | undefined): Deno.FileInfo {
  return native?.lstat(path) ?? Deno.lstatSync(path);
}

/** `fstat` in Deno's shape. */
function fileInfo(stats: Stats): Deno.FileInfo {
  return {
    isFile: stats.isFile(),
    isDirectory: stats.isDirectory(),
    isSymlink: stats.isSymbolicLink(),
    isBlockDevice: stats.isBlockDevice(),
    isCharDevice: stats.isCharacterDevice(),
    isFifo: stats.isFIFO(),
    isSocket: stats.isSocket(),
    size: stats.size,
    mtime: stats.mtime,
    atime: stats.atime,
    birthtime: stats.birthtime,
    ctime: stats.ctime,
    dev: stats.dev,
    ino: stats.ino,
    mode: stats.mode,
    nlink: stats.nlink,
    uid: stats.uid,
    gid: stats.gid,
    rdev: stats.rdev,
    blksize: stats.blksize,
    blocks: stats.blocks,
  };
}

/**
 * The name holds exactly this regular file, and the directory chain is
 * unchanged just before and just after that is seen: a file opened through a
 * swapped directory can only pass if the swap is made and undone twice
 * between three consecutive system calls. Under Landlock a swap cannot
 * reach outside the roots, and the chain checks of {@linkcode Anchor.within}
 * (before the operation and after it, before its result is used) suffice.
 */
function sameFile(guard: DirGuard, name: string, info: Deno.FileInfo): void {
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
 * Read a whole open file, up to a limit.
 *
 * @param opened The open file.
 * @param limit The most bytes to read.
 * @returns The bytes read (at most `limit`).
 */
export function readAll(opened: OpenedFile, limit: number): Uint8Array {
  const size = Math.min(opened.info.size, limit);
  const buffer = new Uint8Array(size);
  let offset = 0;
  while (offset < size) {
    const n = opened.file.readSync(buffer.subarray(offset));
    if (n === null || n === 0) break;
    offset += n;
  }
  return offset === size ? buffer : buffer.subarray(0, offset);
}

/**
 * Replace (or create) `name` in a guarded directory atomically: a temp file
 * beside it, checked before any content goes in, flushed, given the old
 * file's mode, renamed over the name, and checked again.
 *
 * @param guard The directory guard.
 * @param name One path segment.
 * @param data The new content.
 * @param options `allowHardlinks`; `mode` for a new file (default 0o644).
 * @returns What `fstat` says of the new file once its content is written.
 * @throws {ToolError} `path_denied` when the name is a symlink, a special file, hard-linked, or was swapped.
 */
export function writeAtomic(
  guard: DirGuard,
  name: string,
  data: Uint8Array,
  options: { allowHardlinks: boolean; mode?: number },
): Deno.FileInfo {
  const target = guard.path(name);
  let mode = options.mode ?? 0o644;
  try {
    const old = Deno.lstatSync(target);
    if (!old.isFile) throw swapped(name);
    if (!options.allowHardlinks && (old.nlink ?? 1) > 1) {
      throw new ToolError(
        "path_denied",
        `"${name}" has ${old.nlink} hard links; set "allowHardlinks": true in toolhost.json to write such files`,
      );
    }
    mode = (old.mode ?? mode) & 0o7777;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  guard.verify();
  const temp = guard.path(`.${name.slice(0, 100)}.${crypto.randomUUID().slice(0, 8)}.toolhost-tmp`);
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o600 });
  let renamed = false;
  try {
    const info = file.statSync();
    sameFile(guard, temp.slice(temp.lastIndexOf("/") + 1), info);
    guard.verify();
    let offset = 0;
    while (offset < data.length) offset += file.writeSync(data.subarray(offset));
    file.syncDataSync();
    const written = file.statSync();
    file.close();
    Deno.chmodSync(temp, mode);
    guard.verify();
    Deno.renameSync(temp, target);
    renamed = true;
    sameFile(guard, name, info);
    return written;
  } catch (error) {
    try {
      file.close();
    } catch {
      // Already closed (the chmod or the rename failed, after the close): nothing left to
      // close, and the error that brought us here is the one to throw.
    }
    if (!renamed) removeOwnTemp(temp);
    throw error;
  }
}

/**
 * Remove a temp file this operation created. When a swapped directory made it
 * land elsewhere, the name resolves to it only while the swap lasts, so try
 * for a moment: the name is random, so whatever it removes is ours.
 */
function removeOwnTemp(temp: string): void {
  const until = performance.now() + 5;
  while (performance.now() < until) {
    try {
      Deno.removeSync(temp);
      return;
    } catch {
      // Not there through this path right now: try again until the deadline. Cleanup must not
      // throw over the error being raised; at worst a stray `.toolhost-tmp` file stays behind.
    }
  }
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
