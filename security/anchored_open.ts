/**
 * Opening a file of a checked directory for reading, verified to be the
 * regular file its name holds in an unswapped directory (through libc in a
 * confined worker, else `node:fs`), and reading it whole up to a limit. The
 * guard and the swap checks are in `anchored.ts`.
 *
 * @module
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { type DirGuard, sameFile, swapped } from "./anchored.ts";
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
