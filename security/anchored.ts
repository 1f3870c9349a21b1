/**
 * File operations anchored to a directory, so that no path component can be
 * swapped between the check and the use.
 *
 * Deno has no `openat`, and its permission checks follow symlinks that sit
 * inside an allowed directory. So each operation changes the process's
 * working directory into the checked directory, asks the kernel where it
 * landed (`getcwd`, which cannot be raced: it names the inode we are in), and
 * then touches only a single name relative to it. The last component is
 * checked after opening (the opened file must be the regular file `lstat`
 * sees under that name), so a symlink swapped in at the last moment is caught.
 *
 * The working directory belongs to the whole process, so these operations are
 * synchronous and serialised by a lock shared by every worker in the process.
 *
 * @module
 */

import { ToolError } from "./errors.ts";

/** A lock over the process's working directory, shared across workers. */
export interface DirectoryLock {
  /** Block until the lock is held. */
  acquire(): void;
  /** Release the lock. */
  release(): void;
}

const FREE = 0;
const HELD = 1;
/** A holder that keeps the lock longer than this is presumed dead (its worker was terminated). */
const STALE_MS = 5_000;

/**
 * A lock over a shared buffer of at least 16 bytes; every worker of a process
 * must be given the same buffer.
 *
 * @param buffer The shared buffer.
 * @returns The lock.
 * @throws {RangeError} When the buffer is too small.
 */
export function sharedDirectoryLock(buffer: SharedArrayBuffer): DirectoryLock {
  if (buffer.byteLength < 16) {
    throw new RangeError("The directory lock needs a 16-byte shared buffer");
  }
  const state = new Int32Array(buffer, 0, 1);
  const since = new Float64Array(buffer, 8, 1);
  return {
    acquire() {
      while (Atomics.compareExchange(state, 0, FREE, HELD) !== FREE) {
        if (Atomics.wait(state, 0, HELD, 50) === "timed-out" && Date.now() - since[0]! > STALE_MS) {
          Atomics.store(state, 0, FREE);
        }
      }
      since[0] = Date.now();
    },
    release() {
      Atomics.store(state, 0, FREE);
      Atomics.notify(state, 0, 1);
    },
  };
}

/** What an anchored open returns: the open file and what it is. */
export interface OpenedFile {
  /** The open file; the caller closes it. */
  readonly file: Deno.FsFile;
  /** `fstat` of the open file. */
  readonly info: Deno.FileInfo;
}

/**
 * Runs synchronous operations inside a checked directory.
 *
 * @example
 * ```ts
 * const anchor = new Anchor(lock, policy.roots[0]);
 * const names = anchor.within("/srv/project/src", () => [...Deno.readDirSync(".")]);
 * ```
 */
export class Anchor {
  #lock: DirectoryLock;
  #home: string;

  /**
   * @param lock The process-wide directory lock.
   * @param home Where to leave the working directory afterwards (a root).
   */
  constructor(lock: DirectoryLock, home: string) {
    this.#lock = lock;
    this.#home = home;
  }

  /**
   * Run `fn` with the working directory set to `dir`, verified by the kernel.
   *
   * @param dir A real absolute directory path that the resolver checked.
   * @param fn Synchronous work on names relative to `.`.
   * @returns What `fn` returns.
   * @throws {ToolError} `path_denied` when the directory was swapped on the way in.
   */
  within<T>(dir: string, fn: () => T): T {
    this.#lock.acquire();
    try {
      try {
        Deno.chdir(dir);
      } catch (error) {
        throw swapped(dir, error);
      }
      let landed: string;
      try {
        landed = Deno.cwd();
      } catch (error) {
        throw swapped(dir, error);
      }
      if (landed !== dir) throw swapped(dir);
      return fn();
    } finally {
      try {
        Deno.chdir(this.#home);
      } catch {
        // The home root vanished; the next operation chdirs again anyway.
      }
      this.#lock.release();
    }
  }
}

/**
 * Open `name` in the current (anchored) directory for reading, and check that
 * what was opened is the regular file that the name holds now.
 *
 * @param name One path segment.
 * @param allowHardlinks Whether a file with several hard links may be opened.
 * @returns The open file and its `fstat`.
 * @throws {ToolError} `path_denied` when the name is not a regular file or was swapped.
 */
export function openHere(name: string, allowHardlinks: boolean): OpenedFile {
  const file = Deno.openSync(name, { read: true });
  try {
    const info = file.statSync();
    const link = Deno.lstatSync(name);
    if (!link.isFile || !info.isFile || link.ino !== info.ino || link.dev !== info.dev) {
      throw swapped(name);
    }
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

/**
 * Read a whole open file, up to a limit.
 *
 * @param opened The open file.
 * @param limit The most bytes to read.
 * @returns The bytes read (at most `limit`).
 */
export function readAllHere(opened: OpenedFile, limit: number): Uint8Array {
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
 * Replace (or create) `name` in the current (anchored) directory atomically:
 * write a temp file beside it, flush it, give it the old file's mode, rename.
 * Readers see the old or the new content, never a mix.
 *
 * @param name One path segment.
 * @param data The new content.
 * @param options `allowHardlinks`; `mode` for a new file (default 0o644).
 * @throws {ToolError} `path_denied` when the name is a symlink, a special file, or hard-linked.
 */
export function writeAtomicHere(
  name: string,
  data: Uint8Array,
  options: { allowHardlinks: boolean; mode?: number },
): void {
  let mode = options.mode ?? 0o644;
  try {
    const old = Deno.lstatSync(name);
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
  const temp = `.${name.slice(0, 100)}.${crypto.randomUUID().slice(0, 8)}.toolhost-tmp`;
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o600 });
  try {
    let offset = 0;
    while (offset < data.length) offset += file.writeSync(data.subarray(offset));
    file.syncDataSync();
    file.close();
    Deno.chmodSync(temp, mode);
    Deno.renameSync(temp, name);
  } catch (error) {
    try {
      file.close();
    } catch {
      // already closed
    }
    try {
      Deno.removeSync(temp);
    } catch {
      // nothing to clean
    }
    throw error;
  }
}

function swapped(name: string, cause?: unknown): ToolError {
  return new ToolError(
    "path_denied",
    `"${name}" changed while it was being opened (a path component was swapped); try again`,
    { cause },
  );
}
