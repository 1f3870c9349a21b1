/**
 * The file system calls a tool worker makes on every read — `statx`,
 * `realpath`, `open`, `read`, `close` — straight to libc, for a worker that
 * Landlock confines.
 *
 * Through Deno each of these is an op with its own permission check (and
 * `node:fs`'s `openSync` canonicalises the path again, a `readlink` per
 * component); measured in a worker with scoped permissions, the eleven calls
 * of a small `read_file` took 60-65% of the tool's time. Here they are one
 * libc call each. What keeps them inside the roots is unchanged: every path
 * given here was checked by the resolver first (lexically, then as a real
 * path), and the kernel's Landlock rules refuse an open outside the roots
 * whatever the path says. That is why only a confined worker gets these
 * ({@linkcode loadNativeFs} is called only once Landlock is active): Deno's
 * permission check of the same call adds nothing the kernel does not do.
 *
 * Every call reports failure as `undefined` (or -1) and nothing else: the
 * caller then does the same thing through Deno, which gives the error its
 * usual type and message (or succeeds, when the file changed in between).
 * Paths that C cannot take as they are (a NUL, a lone surrogate, longer than
 * `PATH_MAX`) are failures too, never truncated; so is any path outside the
 * directories the calls were loaded for (the roots: a second, lexical fence
 * under the resolver's, as Deno's check was), and an open for anything but
 * reading.
 *
 * @module
 */

import { constants } from "node:fs";

/** Linux's `O_CLOEXEC` (the same on every architecture; `node:fs` does not name it). */
export const O_CLOEXEC = 0o2000000;
/** The only flags an open may have: read-only, no symlink at the end, no wait on a FIFO, close on exec. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | O_CLOEXEC;
/** A `.` or `..` segment: the paths given here are normalised, so one is refused, not resolved. */
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
/** `AT_FDCWD`: paths relative to the working directory (ours are absolute). */
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
/** `STATX_BASIC_STATS | STATX_BTIME`, what Deno asks for. */
const STATX_ALL = 0xfff;
const STATX_BTIME = 0x800;
/** `struct statx` is 256 bytes on every architecture. */
const STATX_BYTES = 256;
/** Linux's `PATH_MAX`: `realpath` writes at most this much, its NUL included. */
const PATH_MAX = 4096;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const S_IFIFO = 0o010000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const S_IFSOCK = 0o140000;

const SYMBOLS = {
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  realpath: { parameters: ["buffer", "buffer"], result: "pointer" },
  open: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/** File system calls straight to libc; each failure is `undefined` or -1. */
export interface NativeFs {
  /**
   * `lstat`: what the path names, a symlink not followed.
   *
   * @param path An absolute path.
   */
  lstat(path: string): Deno.FileInfo | undefined;
  /**
   * `stat`: what the path names, symlinks followed.
   *
   * @param path An absolute path.
   */
  stat(path: string): Deno.FileInfo | undefined;
  /**
   * `realpath`: the path with every symlink, `.` and `..` resolved.
   *
   * @param path An absolute path.
   */
  realPath(path: string): string | undefined;
  /**
   * `open` for reading.
   *
   * @param path An absolute path.
   * @param flags `O_RDONLY` and any of `O_NOFOLLOW`, `O_NONBLOCK`, `O_CLOEXEC`.
   * @returns The descriptor, or -1 (also for any other flag).
   */
  open(path: string, flags: number): number;
  /**
   * `fstat` of an open descriptor.
   *
   * @param fd The descriptor.
   */
  fstat(fd: number): Deno.FileInfo | undefined;
  /**
   * `read` into a buffer.
   *
   * @param fd The descriptor.
   * @param buffer Where the bytes go.
   * @returns How many were read (0 at the end), or -1.
   */
  read(fd: number, buffer: Uint8Array): number;
  /**
   * `close`.
   *
   * @param fd The descriptor.
   */
  close(fd: number): void;
}

/**
 * Load the calls from libc. Call it before the worker gives up FFI: the
 * loaded functions keep working after that, and nothing else can be loaded.
 *
 * @param libc The path of libc (the caller has FFI permission for it).
 * @param within The directories (real absolute paths) the calls may name
 *   paths in: any other path is a failure before libc sees it.
 * @returns The calls, or `undefined` where libc or one of them cannot be
 *   loaded, or `statx` does not work here (a filter that refuses it).
 */
export function loadNativeFs(libc: string, within: readonly string[]): NativeFs | undefined {
  let lib: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    lib = Deno.dlopen(libc, SYMBOLS);
  } catch {
    // No such libc or symbol (not glibc 2.28+): the caller goes through Deno, and says so.
    return undefined;
  }
  const calls = nativeCalls(lib.symbols, within);
  const root = within[0];
  return root !== undefined && calls.lstat(root)?.isDirectory ? calls : undefined;
}

function nativeCalls(
  libc: Deno.DynamicLibrary<typeof SYMBOLS>["symbols"],
  within: readonly string[],
): NativeFs {
  const inside = (path: string) =>
    !DOT_SEGMENT.test(path) &&
    within.some((dir) => path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  // One call at a time on the worker's thread: the buffers are reused.
  const pathBytes = new Uint8Array(PATH_MAX);
  const realBytes = new Uint8Array(PATH_MAX);
  const statBytes = new Uint8Array(STATX_BYTES);
  const statView = new DataView(statBytes.buffer);
  const empty = new Uint8Array(1);

  /** The path as a C string in `pathBytes`, or false when it may not or C cannot take it as it is. */
  const cPath = (path: string): boolean => {
    if (path.includes("\0") || !path.isWellFormed() || !inside(path)) return false;
    const { read, written } = encoder.encodeInto(path, pathBytes);
    if (read !== path.length || written >= PATH_MAX) return false;
    pathBytes[written] = 0;
    return true;
  };
  const statAt = (fd: number, path: Uint8Array, flags: number) =>
    libc.statx(fd, path, flags, STATX_ALL, statBytes) === 0 ? fileInfo(statView) : undefined;

  return {
    lstat: (path) => cPath(path) ? statAt(AT_FDCWD, pathBytes, AT_SYMLINK_NOFOLLOW) : undefined,
    stat: (path) => cPath(path) ? statAt(AT_FDCWD, pathBytes, 0) : undefined,
    fstat: (fd) => statAt(fd, empty, AT_EMPTY_PATH),
    realPath(path) {
      if (!cPath(path) || libc.realpath(pathBytes, realBytes) === null) return undefined;
      const end = realBytes.indexOf(0);
      try {
        return end > 0 ? decoder.decode(realBytes.subarray(0, end)) : undefined;
      } catch {
        // Not UTF-8: Deno's own call decides what such a name becomes.
        return undefined;
      }
    },
    open: (path, flags) =>
      (flags & ~READ_FLAGS) === 0 && cPath(path) ? libc.open(pathBytes, flags, 0) : -1,
    read: (fd, buffer) => Number(libc.read(fd, buffer, BigInt(buffer.length))),
    close: (fd) => void libc.close(fd),
  };
}

/** `struct statx` in Deno's shape (as `Deno.lstatSync` gives it on Linux). */
function fileInfo(view: DataView): Deno.FileInfo {
  const mask = view.getUint32(0, true);
  const mode = view.getUint16(28, true);
  const type = mode & S_IFMT;
  const seconds = (at: number) => Number(view.getBigInt64(at, true));
  const time = (at: number) =>
    new Date(seconds(at) * 1000 + Math.floor(view.getUint32(at + 8, true) / 1e6));
  return {
    isFile: type === S_IFREG,
    isDirectory: type === S_IFDIR,
    isSymlink: type === S_IFLNK,
    size: Number(view.getBigUint64(40, true)),
    mtime: time(112),
    atime: time(64),
    birthtime: (mask & STATX_BTIME) !== 0 ? time(80) : null,
    // Deno gives the change time in whole seconds.
    ctime: new Date(seconds(96) * 1000),
    dev: makedev(view.getUint32(136, true), view.getUint32(140, true)),
    ino: Number(view.getBigUint64(32, true)),
    mode,
    nlink: view.getUint32(16, true),
    uid: view.getUint32(20, true),
    gid: view.getUint32(24, true),
    rdev: makedev(view.getUint32(128, true), view.getUint32(132, true)),
    blksize: view.getUint32(4, true),
    blocks: Number(view.getBigUint64(48, true)),
    isBlockDevice: type === S_IFBLK,
    isCharDevice: type === S_IFCHR,
    isFifo: type === S_IFIFO,
    isSocket: type === S_IFSOCK,
  };
}

/** glibc's `makedev`, as Deno computes `dev` and `rdev` from a `statx`. */
function makedev(major: number, minor: number): number {
  const value = ((BigInt(major) & 0xfffff000n) << 32n) | ((BigInt(major) & 0xfffn) << 8n) |
    ((BigInt(minor) & 0xffffff00n) << 12n) | (BigInt(minor) & 0xffn);
  return Number(value);
}
