/**
 * Moving a checked file or directory inside the roots: what a move refuses
 * (a root, an existing destination it may not replace, a directory moved
 * into itself, a directory whose place or contents are hidden or protected
 * where it is or where it would go) and the rename, anchored to both
 * directories and checked for a swap before and after.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { swapped } from "./anchored.ts";
import { ToolError } from "./errors.ts";
import type { FsParts } from "./fs_hooks.ts";
import type { ResolvedPath, Resolver } from "./resolver.ts";

/**
 * The most entries a moved directory may hold: each is judged where it is
 * and where it would go before the move, so a bigger tree is refused rather
 * than walked without end.
 */
export const MAX_MOVE_ENTRIES = 50_000;

/** The model's source and destination paths, for the messages. */
export interface MoveRaws {
  /** The path to move. */
  source: string;
  /** The new path. */
  destination: string;
}

/** A move's two checked ends. */
export interface MoveEnds {
  /** The checked path to move. */
  source: ResolvedPath;
  /** The checked new path. */
  destination: ResolvedPath;
}

/**
 * Move or rename a checked file or directory inside the roots.
 *
 * @param fs The resolver and anchor.
 * @param ends Both checked paths.
 * @param options The model's paths; `overwrite` to replace an existing destination file.
 * @throws {ToolError} As `SafeFs.move`.
 */
export function moveResolved(
  fs: FsParts,
  ends: MoveEnds,
  options: { raws: MoveRaws; overwrite: boolean },
): void {
  const { source, destination } = ends;
  const { raws, overwrite } = options;
  if (source.relative === "") {
    throw new ToolError("path_denied", `Cannot move a root ("${raws.source}")`);
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
  if (source.info!.isDirectory) refuseMovingDirectory(fs.resolver, raws, ends);
  fs.anchor.within(posix.dirname(source.path), (from) => {
    const now = Deno.lstatSync(source.path);
    if (now.ino !== source.info!.ino || now.dev !== source.info!.dev) {
      throw swapped(source.display);
    }
    fs.anchor.within(posix.dirname(destination.path), (to) => {
      from.verify();
      Deno.renameSync(source.path, destination.path);
      const moved = Deno.lstatSync(destination.path);
      if (moved.ino !== now.ino || moved.dev !== now.dev) throw swapped(destination.display);
      to.verify();
    });
  });
}

/**
 * A directory is moved with everything in it: refuse when its place
 * decides ({@linkcode Resolver.refuseMovingDirectory}), or when anything
 * beneath it is hidden or protected where it is, or would be where it
 * goes. Looked at without following links, and at most
 * {@linkcode MAX_MOVE_ENTRIES} entries: past that, refused.
 */
function refuseMovingDirectory(resolver: Resolver, raws: MoveRaws, ends: MoveEnds): void {
  const { source, destination } = ends;
  resolver.refuseMovingDirectory(raws, source.path, destination.path);
  const pending = [source.path];
  let seen = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of entriesOf(raws.source, dir, resolver.display(dir))) {
      if (++seen > MAX_MOVE_ENTRIES) {
        throw new ToolError(
          "too_large",
          `Cannot move ${
            JSON.stringify(raws.source)
          }: it holds more than ${MAX_MOVE_ENTRIES} entries, and each is checked before a move; move its parts instead`,
        );
      }
      const path = `${dir}/${entry.name}`;
      refuseMovedEntry(resolver, raws, {
        path,
        moved: `${destination.path}${path.slice(source.path.length)}`,
      });
      if (entry.isDirectory && !entry.isSymlink) pending.push(path);
    }
  }
}

/** One entry of a moved directory: neither hidden nor protected, where it is or where it goes. */
function refuseMovedEntry(
  resolver: Resolver,
  raws: MoveRaws,
  entry: { path: string; moved: string },
): void {
  const { path, moved } = entry;
  const from = JSON.stringify(raws.source);
  const to = JSON.stringify(raws.destination);
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
