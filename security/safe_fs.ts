/**
 * Safe file operations: the resolver's checks, then the operation anchored
 * to the checked directory (`anchored.ts`). Tools use this, never `Deno.*`
 * file APIs on raw strings. The class is the one entry; the reads are in
 * `safe_read.ts`, the listing in `dir_listing.ts`, the move in
 * `safe_move.ts`, the making of missing parents in `make_dirs.ts`.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { type Anchor, swapped } from "./anchored.ts";
import { writeAtomic } from "./anchored_write.ts";
import { type DirEntry, listDirectory } from "./dir_listing.ts";
import { type FileVersion, fingerprint, type FsHooks, type FsParts } from "./fs_hooks.ts";
import { makeParents } from "./make_dirs.ts";
import type { ResolvedPath, Resolver } from "./resolver.ts";
import { readMany, readVersion, refuseStale } from "./safe_read.ts";
import { moveResolved } from "./safe_move.ts";

export type { DirEntry, FileVersion, FsHooks };
export { formatBytes } from "./sizes.ts";

/** Options for {@linkcode SafeFs.write}. */
export interface WriteOptions {
  /** Create missing parent directories (inside the roots). */
  createParents?: boolean;
  /** Refuse when the file does not exist yet. */
  mustExist?: boolean;
}

/** Safe, anchored file operations for tools. */
export class SafeFs {
  /** The resolver every raw path goes through. */
  readonly resolver: Resolver;
  #fs: FsParts;

  /**
   * File operations through a resolver and anchored I/O.
   *
   * @param resolver The resolver.
   * @param anchor The anchor for the process's working directory.
   * @param hooks Told of everything touched and read (for the log and stale reads).
   */
  constructor(resolver: Resolver, anchor: Anchor, hooks: FsHooks = {}) {
    this.resolver = resolver;
    this.#fs = { resolver, anchor, hooks };
  }

  /**
   * A copy that reports to (and asks) these hooks.
   *
   * @param hooks What to tell, and the stale-read expectations.
   */
  withHooks(hooks: FsHooks): SafeFs {
    return new SafeFs(this.resolver, this.#fs.anchor, hooks);
  }

  #touch(path: string): void {
    this.#fs.hooks.touch?.(path);
  }

  /**
   * Resolve a raw path and note it as touched.
   *
   * @param raw The model's path.
   * @param want What it must be.
   * @returns The checked path.
   */
  async resolve(raw: string, want: "file" | "directory" | "any" = "any"): Promise<ResolvedPath> {
    const resolved = await this.resolver.resolve(raw, {
      want,
      write: this.#fs.hooks.writes ?? false,
    });
    this.#touch(resolved.display);
    return resolved;
  }

  /**
   * Read a whole file.
   *
   * @param raw The model's path.
   * @param limit The largest size accepted, in bytes.
   * @returns The checked path and the bytes.
   * @throws {ToolError} `too_large` when the file is bigger than `limit`.
   */
  async read(raw: string, limit: number): Promise<{ resolved: ResolvedPath; bytes: Uint8Array }> {
    const resolved = await this.resolve(raw, "file");
    return { resolved, bytes: this.readResolved(resolved, limit) };
  }

  /**
   * Read a checked file, anchored to its directory.
   *
   * @param resolved A checked file path.
   * @param limit The largest size accepted, in bytes.
   * @returns The bytes.
   * @throws {ToolError} `too_large`, or `path_denied` when it was swapped.
   */
  readResolved(resolved: ResolvedPath, limit: number): Uint8Array {
    return this.readVersion(resolved, limit).bytes;
  }

  /**
   * Read a checked file with what identifies this version of it (for caches
   * keyed by content: the fingerprint is computed once per read anyway).
   *
   * @param resolved A checked file path.
   * @param limit The largest size accepted, in bytes.
   * @returns The bytes, `fstat` and fingerprint.
   * @throws {ToolError} `too_large`, or `path_denied` when it was swapped.
   */
  readVersion(resolved: ResolvedPath, limit: number): FileVersion {
    return readVersion(this.#fs, resolved, limit);
  }

  /**
   * Read several files of one checked directory in one anchored pass. Files
   * that are not regular, are swapped, or are over `limit` come back as errors.
   *
   * @param dir A checked directory (real path).
   * @param names Names in it.
   * @param limit The largest size read, in bytes.
   * @returns One entry per name: the bytes or why not.
   */
  readMany(dir: string, names: readonly string[], limit: number): Array<Uint8Array | Error> {
    return readMany(this.#fs, dir, { names, limit });
  }

  /**
   * Write a file atomically (temp file beside it, then rename), keeping its mode.
   *
   * @param raw The model's path.
   * @param data The new content.
   * @param options Create parents; require that it exists.
   * @returns The checked path.
   */
  async write(raw: string, data: Uint8Array, options: WriteOptions = {}): Promise<ResolvedPath> {
    const resolved = await this.resolver.resolve(raw, {
      want: "file",
      mayCreate: !options.mustExist,
      createParents: options.createParents ?? false,
      write: true,
    });
    this.#touch(resolved.display);
    if (resolved.info === undefined && options.createParents) {
      await makeParents(this.#fs, resolved.path);
    }
    this.writeResolved(resolved, data);
    return resolved;
  }

  /**
   * Write a checked file atomically, anchored to its directory.
   *
   * @param resolved A checked path (existing file or a new name).
   * @param data The new content.
   */
  writeResolved(resolved: ResolvedPath, data: Uint8Array): void {
    const { dir, name } = split(resolved.path);
    const info = this.#fs.anchor.within(dir, (guard) => {
      // Judged on the checked real path, in a directory chain that the guard holds still.
      this.resolver.refuseProtected(resolved.display, guard.path(name));
      if (resolved.info !== undefined) {
        const now = Deno.lstatSync(guard.path(name));
        if (now.ino !== resolved.info.ino || now.dev !== resolved.info.dev) {
          throw swapped(resolved.display);
        }
        refuseStale(this.#fs, guard, resolved);
      }
      return writeAtomic(guard, name, data, {
        allowHardlinks: this.resolver.policy.allowHardlinks,
      });
    });
    this.#fs.hooks.wrote?.(resolved, { bytes: data, info, fingerprint: fingerprint(data) });
  }

  /**
   * `lstat` of a path in the roots without resolving it, or `undefined` when
   * it is not in a root or the call fails: only to see cheaply that a file is
   * unchanged (whatever it says is acted on through the resolver).
   *
   * @param path An absolute path.
   * @returns What it is.
   */
  peek(path: string): Deno.FileInfo | undefined {
    return this.resolver.locate(path) === undefined ? undefined : this.#fs.anchor.peek(path);
  }

  /**
   * List a checked directory without following symlinks; hidden entries are left out.
   *
   * @param dir A checked directory (real path).
   * @param options `sizes`: also `lstat` each entry for its size and mtime.
   * @returns The entries, sorted by name.
   */
  list(dir: string, options: { sizes?: boolean } = {}): DirEntry[] {
    return listDirectory(this.#fs, dir, options);
  }

  /**
   * Make a directory (and its missing parents when asked).
   *
   * @param raw The model's path.
   * @param parents Create missing parents too.
   * @returns The checked path and whether it already existed.
   */
  async mkdir(
    raw: string,
    parents: boolean,
  ): Promise<{ resolved: ResolvedPath; existed: boolean }> {
    const resolved = await this.resolver.resolve(raw, {
      want: "directory",
      mayCreate: true,
      createParents: parents,
      write: true,
    });
    this.#touch(resolved.display);
    if (resolved.info !== undefined) return { resolved, existed: true };
    await makeParents(this.#fs, resolved.path);
    const { dir } = split(resolved.path);
    this.#fs.anchor.within(dir, () => Deno.mkdirSync(resolved.path));
    return { resolved, existed: false };
  }

  /**
   * Move or rename a file or directory inside the roots.
   *
   * @param rawSource The path to move.
   * @param rawDestination The new path (its parent must exist).
   * @param overwrite Replace an existing destination file.
   * @returns Both checked paths.
   * @throws {ToolError} `path_denied` when the source is, holds or would put
   *   something at a hidden path (the blacklist, the host's state directory)
   *   or holds a root; `protected_path` likewise for protected paths;
   *   `too_large` for a directory of more than `MAX_MOVE_ENTRIES` (`safe_move.ts`)
   *   entries.
   */
  async move(
    rawSource: string,
    rawDestination: string,
    overwrite: boolean,
  ): Promise<{ source: ResolvedPath; destination: ResolvedPath }> {
    const source = await this.resolver.resolve(rawSource, { write: true });
    const destination = await this.resolver.resolve(rawDestination, {
      mayCreate: true,
      write: true,
    });
    this.#touch(source.display);
    this.#touch(destination.display);
    moveResolved(this.#fs, { source, destination }, {
      raws: { source: rawSource, destination: rawDestination },
      overwrite,
    });
    this.#fs.hooks.moved?.(source, destination);
    return { source, destination };
  }
}

function split(path: string): { dir: string; name: string } {
  return { dir: posix.dirname(path), name: posix.basename(path) };
}
