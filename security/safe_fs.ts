/**
 * Safe file operations: the resolver's checks, then the operation anchored
 * to the checked directory (`anchored.ts`). Tools use this, never `Deno.*`
 * file APIs on raw strings.
 *
 * @module
 */

import { createHash } from "node:crypto";
import * as posix from "node:path/posix";
import { Anchor, type DirGuard, openVerified, readAll, swapped, writeAtomic } from "./anchored.ts";
import { ToolError } from "./errors.ts";
import type { ResolvedPath, Resolver } from "./resolver.ts";

/** One entry of a directory listing. */
export interface DirEntry {
  /** The entry's name. */
  readonly name: string;
  /** Its real absolute path (for a symlink, the link's own path). */
  readonly path: string;
  /** What it is; symlinks are never followed by listings. */
  readonly kind: "file" | "directory" | "symlink" | "other";
  /** Size in bytes (0 unless sizes were asked for). */
  readonly size: number;
  /** Modification time, when sizes were asked for. */
  readonly mtime: Date | null;
}

/**
 * The most entries a moved directory may hold: each is judged where it is
 * and where it would go before the move, so a bigger tree is refused rather
 * than walked without end.
 */
export const MAX_MOVE_ENTRIES = 50_000;

/** Options for {@linkcode SafeFs.write}. */
export interface WriteOptions {
  /** Create missing parent directories (inside the roots). */
  createParents?: boolean;
  /** Refuse when the file does not exist yet. */
  mustExist?: boolean;
}

/** One version of a whole file: its bytes, and what identifies the version. */
export interface FileVersion {
  /** The content. */
  readonly bytes: Uint8Array;
  /** What `fstat` said of the open file (once written, for a write). */
  readonly info: Deno.FileInfo;
  /** The content's {@linkcode fingerprint}. */
  readonly fingerprint: string;
}

/** What a caller of {@linkcode SafeFs} is told, and may refuse. */
export interface FsHooks {
  /** A path was touched (its display path). */
  touch?(path: string): void;
  /** A whole file was read. */
  read?(resolved: ResolvedPath, file: FileVersion): void;
  /** A file was written. */
  wrote?(resolved: ResolvedPath, file: FileVersion): void;
  /** A file or directory was moved (with everything beneath it). */
  moved?(source: ResolvedPath, destination: ResolvedPath): void;
  /**
   * The fingerprint a file must still have before it is overwritten (what the
   * agent last read), or `undefined` when there is none to check.
   */
  expected?(path: string): string | undefined;
  /**
   * The call may write: every path it resolves is refused up front when it
   * is protected (an editor says `protected_path` before it parses anything).
   */
  writes?: boolean;
}

/**
 * A file's fingerprint: its size and the first 64 bits of the SHA-256 of its
 * bytes, in hex. It tells versions of one file apart (stale reads, caches
 * keyed by content); `<size>:?` stands for a version too large to hash, and
 * never equals a fingerprint.
 *
 * @param bytes The content.
 * @returns E.g. `1234:9f3a0c1b5e7d2a40`.
 */
export function fingerprint(bytes: Uint8Array): string {
  return `${bytes.length}:${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}`;
}

/** Safe, anchored file operations for tools. */
export class SafeFs {
  /** The resolver every raw path goes through. */
  readonly resolver: Resolver;
  #anchor: Anchor;
  #hooks: FsHooks;

  /**
   * File operations through a resolver and anchored I/O.
   *
   * @param resolver The resolver.
   * @param anchor The anchor for the process's working directory.
   * @param hooks Told of everything touched and read (for the log and stale reads).
   */
  constructor(resolver: Resolver, anchor: Anchor, hooks: FsHooks = {}) {
    this.resolver = resolver;
    this.#anchor = anchor;
    this.#hooks = hooks;
  }

  /**
   * A copy that reports to (and asks) these hooks.
   *
   * @param hooks What to tell, and the stale-read expectations.
   */
  withHooks(hooks: FsHooks): SafeFs {
    return new SafeFs(this.resolver, this.#anchor, hooks);
  }

  #touch(path: string): void {
    this.#hooks.touch?.(path);
  }

  /**
   * Resolve a raw path and note it as touched.
   *
   * @param raw The model's path.
   * @param want What it must be.
   * @returns The checked path.
   */
  async resolve(raw: string, want: "file" | "directory" | "any" = "any"): Promise<ResolvedPath> {
    const resolved = await this.resolver.resolve(raw, { want, write: this.#hooks.writes ?? false });
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
    const { dir, name } = split(resolved.path);
    return this.#anchor.within(dir, (guard) => {
      const opened = openVerified(guard, name, this.resolver.policy.allowHardlinks);
      try {
        if (opened.info.size > limit) {
          throw new ToolError(
            "too_large",
            `Cannot read "${resolved.display}" whole: it is ${
              formatBytes(opened.info.size)
            }, the limit is ${formatBytes(limit)}; use get_file_slice for a range of lines`,
          );
        }
        const bytes = readAll(opened, limit);
        const file = { bytes, info: opened.info, fingerprint: fingerprint(bytes) };
        this.#hooks.read?.(resolved, file);
        return file;
      } finally {
        opened.file.close();
      }
    });
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
    return this.#anchor.within(dir, (guard) =>
      names.map((name) => {
        try {
          const opened = openVerified(guard, name, this.resolver.policy.allowHardlinks);
          try {
            if (opened.info.size > limit) return new RangeError(`over ${limit} bytes`);
            return readAll(opened, limit);
          } finally {
            opened.file.close();
          }
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      }));
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
      await this.#makeParents(resolved.path);
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
    const info = this.#anchor.within(dir, (guard) => {
      // Judged on the checked real path, in a directory chain that the guard holds still.
      this.resolver.refuseProtected(resolved.display, guard.path(name));
      if (resolved.info !== undefined) {
        const now = Deno.lstatSync(guard.path(name));
        if (now.ino !== resolved.info.ino || now.dev !== resolved.info.dev) {
          throw swapped(resolved.display);
        }
        this.#refuseStale(guard, name, resolved);
      }
      return writeAtomic(guard, name, data, {
        allowHardlinks: this.resolver.policy.allowHardlinks,
      });
    });
    this.#hooks.wrote?.(resolved, { bytes: data, info, fingerprint: fingerprint(data) });
  }

  /** Refuse to overwrite a file that changed since the agent last read it. */
  #refuseStale(guard: DirGuard, name: string, resolved: ResolvedPath): void {
    const expected = this.#hooks.expected?.(resolved.display);
    if (expected === undefined) return;
    const opened = openVerified(guard, name, this.resolver.policy.allowHardlinks);
    let current: Uint8Array;
    try {
      current = readAll(opened, this.resolver.policy.limits.maxEditBytes);
    } finally {
      opened.file.close();
    }
    if (fingerprint(current) !== expected) {
      throw new ToolError(
        "stale_read",
        `"${resolved.display}" changed since you last read it (by another program or session); read it again first, or pass force: true to edit it anyway`,
      );
    }
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
    return this.resolver.locate(path) === undefined ? undefined : this.#anchor.peek(path);
  }

  /**
   * List a checked directory without following symlinks; hidden entries are left out.
   *
   * @param dir A checked directory (real path).
   * @param options `sizes`: also `lstat` each entry for its size and mtime.
   * @returns The entries, sorted by name.
   */
  list(dir: string, options: { sizes?: boolean } = {}): DirEntry[] {
    const entries = this.#anchor.within(dir, (guard) => {
      const out: DirEntry[] = [];
      for (const entry of Deno.readDirSync(dir)) {
        const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
        if (this.resolver.hidden(path)) continue;
        const kind = entry.isSymlink
          ? "symlink"
          : entry.isDirectory
          ? "directory"
          : entry.isFile
          ? "file"
          : "other";
        let size = 0;
        let mtime: Date | null = null;
        if (options.sizes) {
          try {
            const info = guard.lstat(entry.name);
            size = info.size;
            mtime = info.mtime;
          } catch {
            // Vanished since readdir: listed with size 0 and no mtime rather than failing the
            // listing (a listing must not throw on a race it cannot help).
          }
        }
        out.push({ name: entry.name, path, kind, size, mtime });
      }
      return out;
    });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
    await this.#makeParents(resolved.path);
    const { dir } = split(resolved.path);
    this.#anchor.within(dir, () => Deno.mkdirSync(resolved.path));
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
   *   `too_large` for a directory of more than {@linkcode MAX_MOVE_ENTRIES}
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
    if (source.relative === "") {
      throw new ToolError("path_denied", `Cannot move a root ("${rawSource}")`);
    }
    if (destination.info !== undefined) {
      if (!overwrite) {
        throw new ToolError(
          "already_exists",
          `Cannot move to "${destination.display}": it exists (pass overwrite: true to replace a file)`,
        );
      }
      if (destination.info.isDirectory || source.info!.isDirectory) {
        throw new ToolError(
          "already_exists",
          `Cannot move to "${destination.display}": overwrite replaces files only`,
        );
      }
    }
    if (destination.path.startsWith(`${source.path}/`)) {
      throw new ToolError("invalid_argument", `Cannot move "${source.display}" into itself`);
    }
    if (source.info!.isDirectory) {
      this.#refuseMovingDirectory(
        { source: rawSource, destination: rawDestination },
        source,
        destination,
      );
    }
    this.#anchor.within(split(source.path).dir, (from) => {
      const now = Deno.lstatSync(source.path);
      if (now.ino !== source.info!.ino || now.dev !== source.info!.dev) {
        throw swapped(source.display);
      }
      this.#anchor.within(split(destination.path).dir, (to) => {
        from.verify();
        Deno.renameSync(source.path, destination.path);
        const moved = Deno.lstatSync(destination.path);
        if (moved.ino !== now.ino || moved.dev !== now.dev) throw swapped(destination.display);
        to.verify();
      });
    });
    this.#hooks.moved?.(source, destination);
    return { source, destination };
  }

  /**
   * A directory is moved with everything in it: refuse when its place
   * decides ({@linkcode Resolver.refuseMovingDirectory}), or when anything
   * beneath it is hidden or protected where it is, or would be where it
   * goes. Looked at without following links, and at most
   * {@linkcode MAX_MOVE_ENTRIES} entries: past that, refused.
   */
  #refuseMovingDirectory(
    raws: { source: string; destination: string },
    source: ResolvedPath,
    destination: ResolvedPath,
  ): void {
    this.resolver.refuseMovingDirectory(raws, source.path, destination.path);
    const pending = [source.path];
    let seen = 0;
    while (pending.length > 0) {
      const dir = pending.pop()!;
      for (const entry of entriesOf(raws.source, dir, this.resolver.display(dir))) {
        if (++seen > MAX_MOVE_ENTRIES) {
          throw new ToolError(
            "too_large",
            `Cannot move ${
              JSON.stringify(raws.source)
            }: it holds more than ${MAX_MOVE_ENTRIES} entries, and each is checked before a move; move its parts instead`,
          );
        }
        const path = `${dir}/${entry.name}`;
        this.#refuseMovedEntry(raws, path, `${destination.path}${path.slice(source.path.length)}`);
        if (entry.isDirectory && !entry.isSymlink) pending.push(path);
      }
    }
  }

  /** One entry of a moved directory: neither hidden nor protected, where it is or where it goes. */
  #refuseMovedEntry(
    raws: { source: string; destination: string },
    path: string,
    moved: string,
  ): void {
    const from = JSON.stringify(raws.source);
    const to = JSON.stringify(raws.destination);
    const resolver = this.resolver;
    // A hidden entry is never named: that would tell that it exists.
    const hidden = resolver.hidden(path);
    if (hidden !== undefined) {
      throw new ToolError(
        "path_denied",
        `Cannot move ${from}: it holds a path hidden by the blacklist (${hidden}); move what is around it instead`,
      );
    }
    const why = resolver.protectedWhy(path);
    if (why !== undefined) {
      throw new ToolError(
        "protected_path",
        `${from} is protected: it holds "${
          resolver.display(path)
        }" (${why}); move what is around it instead`,
      );
    }
    const hides = resolver.hidden(moved);
    if (hides !== undefined) {
      throw new ToolError(
        "path_denied",
        `Cannot move ${from} to ${to}: "${resolver.display(path)}" would become "${
          resolver.display(moved)
        }", which the blacklist hides (${hides})`,
      );
    }
    const guards = resolver.protectedWhy(moved);
    if (guards !== undefined) {
      throw new ToolError(
        "protected_path",
        `${to} is protected: "${resolver.display(path)}" would become "${
          resolver.display(moved)
        }" (${guards})`,
      );
    }
  }

  async #makeParents(path: string): Promise<void> {
    const missing: string[] = [];
    let dir = posix.dirname(path);
    while (!(await exists(dir))) {
      missing.unshift(dir);
      dir = posix.dirname(dir);
    }
    for (const each of missing) {
      const resolved = await this.resolver.resolve(each, {
        want: "directory",
        mayCreate: true,
        write: true,
      });
      if (resolved.info !== undefined) continue;
      this.#anchor.within(split(resolved.path).dir, () => {
        try {
          Deno.mkdirSync(resolved.path);
        } catch (error) {
          // A concurrent call made it first: fine, if it is a real directory.
          if (
            !(error instanceof Deno.errors.AlreadyExists) ||
            !Deno.lstatSync(resolved.path).isDirectory
          ) throw error;
        }
      });
    }
  }
}

/**
 * Human size: `512 B`, `3.1 KB`, `9.0 MB`.
 *
 * @param bytes A size in bytes.
 * @returns The size for people.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

function split(path: string): { dir: string; name: string } {
  return { dir: posix.dirname(path), name: posix.basename(path) };
}

/**
 * A directory's entries, read as they are used (a huge directory is not read
 * whole), or a refusal to move what holds it when they cannot be read.
 */
function* entriesOf(raw: string, dir: string, shown: string): Generator<Deno.DirEntry> {
  const unreadable = (cause: unknown) =>
    new ToolError(
      "path_denied",
      `Cannot move ${JSON.stringify(raw)}: "${shown}" could not be read to check what it holds`,
      { cause },
    );
  let entries: Iterator<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(dir)[Symbol.iterator]();
  } catch (error) {
    throw unreadable(error);
  }
  try {
    for (;;) {
      let next: IteratorResult<Deno.DirEntry>;
      try {
        next = entries.next();
      } catch (error) {
        throw unreadable(error);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    entries.return?.();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    // Not there (or not visible): the directory is then made through the resolver, whose
    // checks and mkdir report any real error.
    return false;
  }
}
