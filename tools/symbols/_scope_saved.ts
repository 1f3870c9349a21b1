/**
 * A scope's listing kept on disk between runs, so that the first call after
 * a restart checks 20,000 files instead of walking to them: walking lists
 * every directory through the anchored checks (a chain of `lstat`s each),
 * then lists each again for sizes; checking reads one `lstat` per directory
 * and per source file.
 *
 * The listing is taken as the kept listing is (`_scope_listing.ts`): after
 * the directories are watched. Each directory's mtime is the one its
 * parent's listing showed before it was listed itself, so a name added or
 * removed since moves it. It is used again only when everything still says
 * so, else the scope is walked:
 * - the same format, scope and policy (roots, state directory, what is hidden);
 * - every directory still a directory of that mtime; one that changed in the
 *   {@linkcode RACY_MS} before the listing was taken is listed again and must
 *   hold the same names (a second change within the same tick of its file
 *   system's clock, a second on some, would not move its mtime);
 * - every `.gitignore` that shaped the walk (in the scope and above it, up to
 *   its root) of the same version.
 *
 * The caller watches the directories first, so a change after the check is
 * reported. Files' versions are not kept: they are read at the check. The
 * file lives in a state directory the host made its own, like the rest of the
 * index; anything else there is ignored.
 *
 * @module
 */

import { isOwnStateDir } from "../../security/state_marker.ts";
import type { DirEntry } from "../../security/safe_fs.ts";
import type { ToolContext } from "../tool.ts";
import { hashOf } from "./_facts_store.ts";
import { SCOPES_DIR } from "./state_names.ts";

/** How long before the listing a change may have been missed by its mtime. */
export const RACY_MS = 2_000;

/** Bump when what is kept changes: older files are then ignored. */
const FORMAT = 1;

/** An entry's kind, by one letter. */
const KINDS = { f: "file", d: "directory", l: "symlink", o: "other" } as const;
type KindCode = keyof typeof KINDS;
const CODES = { file: "f", directory: "d", symlink: "l", other: "o" } as const;

/** One directory: its path under the scope (`""` for the scope), mtime, entries, and which are sources. */
type SavedDir = [string, number, Array<[string, KindCode]>, string[]];

/** A `.gitignore` that shaped the walk: its path, and its mtime and size (none when missing). */
type SavedIgnore = [string, number, number] | [string];

interface SavedScope {
  format: number;
  scope: string;
  policy: string;
  listedAt: number;
  dirs: SavedDir[];
  ignores: SavedIgnore[];
}

/** A directory as the walk left it: its mtime, whole listing and source files. */
export interface ListedDir {
  /** Its mtime as its parent's listing showed it (for the scope, as looked at first). */
  readonly mtime: number;
  /** Its entries. */
  readonly entries: readonly DirEntry[];
  /** Its source files' names (those the walk kept). */
  readonly sources: readonly string[];
}

/** A kept listing, read back and checked. */
export interface RestoredScope {
  /** Each directory's entries, source files with their versions now. */
  readonly listings: Map<string, DirEntry[]>;
  /** The source files, by real path. */
  readonly files: Map<string, DirEntry>;
}

/**
 * Keep a scope's listing (a failure only means the next run walks).
 *
 * @param ctx The tool context.
 * @param scope The scope's real path.
 * @param listedAt When its listing began (ms since the epoch).
 * @param dirs Every directory walked, the scope first.
 */
export function saveScope(
  ctx: ToolContext,
  scope: string,
  listedAt: number,
  dirs: ReadonlyMap<string, ListedDir>,
): void {
  const file = fileOf(ctx, scope);
  if (file === undefined) return;
  const saved: SavedScope = {
    format: FORMAT,
    scope,
    policy: policyOf(ctx),
    listedAt,
    dirs: [...dirs].map(([dir, listed]) => [
      dir.slice(scope.length + 1),
      listed.mtime,
      listed.entries.map((entry) => [entry.name, CODES[entry.kind]]),
      [...listed.sources],
    ]),
    ignores: ignoresOf(ctx, scope, dirs),
  };
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    Deno.mkdirSync(`${ctx.policy.stateDir}/${SCOPES_DIR}`, { recursive: true, mode: 0o700 });
    Deno.writeTextFileSync(temporary, JSON.stringify(saved), { mode: 0o600 });
    Deno.renameSync(temporary, file);
  } catch (error) {
    Deno.remove(temporary).catch(() => {});
    ctx.logger.warn("The symbol index could not keep a scope's listing", error);
  }
}

/**
 * A scope's kept listing, when there is one for this scope and policy: the
 * directories to watch before {@linkcode checkScope} checks it.
 *
 * @param ctx The tool context.
 * @param scope The scope's real path.
 * @returns The listing as kept, or `undefined`.
 */
export function loadScope(ctx: ToolContext, scope: string): SavedScope | undefined {
  const file = fileOf(ctx, scope);
  if (file === undefined) return undefined;
  let saved: SavedScope;
  try {
    saved = JSON.parse(Deno.readTextFileSync(file));
  } catch {
    // None, or damaged: walk.
    return undefined;
  }
  const fits = saved?.format === FORMAT && saved.scope === scope &&
    saved.policy === policyOf(ctx) && Array.isArray(saved.dirs) && saved.dirs.length > 0 &&
    saved.dirs[0]![0] === "" && Array.isArray(saved.ignores);
  return fits ? saved : undefined;
}

/**
 * The directories a kept listing names.
 *
 * @param saved A kept listing.
 * @returns Their real paths, the scope first.
 */
export function savedDirs(saved: SavedScope): Set<string> {
  return new Set(saved.dirs.map(([dir]) => pathOf(saved.scope, dir)));
}

/**
 * Check a kept listing against the disk, and read its source files' versions.
 *
 * @param ctx The tool context.
 * @param saved A kept listing.
 * @param accept Which file names are sources.
 * @returns The listing, or `undefined` when anything moved (then walk).
 */
export function checkScope(
  ctx: ToolContext,
  saved: SavedScope,
  accept: (name: string) => boolean,
): RestoredScope | undefined {
  for (const [path, mtime, size] of saved.ignores) {
    const info = ctx.fs.peek(path);
    if (size === undefined ? info !== undefined : !sameFile(info, mtime!, size)) return undefined;
  }
  const out: RestoredScope = { listings: new Map(), files: new Map() };
  for (const [relative, mtime, entries, sources] of saved.dirs) {
    const dir = pathOf(saved.scope, relative);
    const info = ctx.fs.peek(dir);
    const unmoved = info?.isDirectory && !info.isSymlink && info.mtime?.getTime() === mtime;
    if (!unmoved) return undefined;
    if (mtime > saved.listedAt - RACY_MS && !holdsSame(ctx, dir, entries)) return undefined;
    const wanted = new Set(sources);
    const listing: DirEntry[] = [];
    for (const [name, code] of entries) {
      const path = `${dir}/${name}`;
      const kind = KINDS[code];
      if (kind !== "file" || !accept(name)) {
        listing.push({ name, path, kind, size: 0, mtime: null });
        continue;
      }
      const now = ctx.fs.peek(path);
      if (!now?.isFile) return undefined;
      const entry: DirEntry = { name, path, kind, size: now.size, mtime: now.mtime };
      listing.push(entry);
      if (wanted.has(name)) out.files.set(path, entry);
    }
    out.listings.set(dir, listing);
  }
  return out;
}

/** The `.gitignore` files that shaped a walk: in its directories, and above the scope up to its root. */
function ignoresOf(
  ctx: ToolContext,
  scope: string,
  dirs: ReadonlyMap<string, ListedDir>,
): SavedIgnore[] {
  const out: SavedIgnore[] = [];
  const root = ctx.resolver.locate(scope)?.root;
  for (let dir = scope; root !== undefined && dir !== root && dir.length > root.length;) {
    dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
    out.push(ignoreOf(ctx, `${dir === "/" ? "" : dir}/.gitignore`));
  }
  for (const listed of dirs.values()) {
    const entry = listed.entries.find((each) => each.name === ".gitignore");
    if (entry) out.push(ignoreOf(ctx, entry.path));
  }
  return out;
}

/** Whether a directory holds the same names, of the same kinds, as a kept listing says. */
function holdsSame(
  ctx: ToolContext,
  dir: string,
  entries: ReadonlyArray<[string, KindCode]>,
): boolean {
  let now: DirEntry[];
  try {
    now = ctx.fs.list(dir);
  } catch {
    // Gone or swapped: walk.
    return false;
  }
  const kinds = new Map(entries);
  return now.length === kinds.size &&
    now.every((entry) => kinds.get(entry.name) === CODES[entry.kind]);
}

function ignoreOf(ctx: ToolContext, path: string): SavedIgnore {
  const info = ctx.fs.peek(path);
  return info ? [path, info.mtime?.getTime() ?? 0, info.size] : [path];
}

function sameFile(info: Deno.FileInfo | undefined, mtime: number, size: number): boolean {
  return info !== undefined && (info.mtime?.getTime() ?? 0) === mtime && info.size === size;
}

/** What decides what a walk of the scope finds besides the disk. */
function policyOf(ctx: ToolContext): string {
  const { roots, stateDir, blacklist, hiddenFiles } = ctx.policy;
  return JSON.stringify([roots, stateDir, blacklist, hiddenFiles]);
}

function fileOf(ctx: ToolContext, scope: string): string | undefined {
  if (!isOwnStateDir(ctx.policy.stateDir)) return undefined;
  return `${ctx.policy.stateDir}/${SCOPES_DIR}/${hashOf(scope)}.json`;
}

function pathOf(scope: string, relative: string): string {
  return relative === "" ? scope : `${scope}/${relative}`;
}
