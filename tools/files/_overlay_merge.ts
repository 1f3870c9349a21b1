/**
 * Merge what a shell command wrote into an overlay's upper directory
 * (`security/sandbox_overlay.ts`) into its root, once the command ended,
 * judging every entry at its final place as a writing tool is judged:
 *
 * - a file, link or new directory at a protected path (`toolhost.json`,
 *   `.envrc`, a git directory's config or hooks, `sub/.git/config`, where a
 *   protected link leads…), in the state directory, a `.git` that is not a
 *   directory, a link inside a git directory, or anything but a regular
 *   file, directory or link is not applied: it is moved into the state
 *   directory (`set-aside/<time>/<root>/<path>`) and reported;
 * - a deletion (overlayfs's whiteout, or an opaque directory that hides
 *   what was below it) of a protected or hidden entry, or of a directory
 *   holding one, is not made, and is reported;
 * - everything else is renamed into place (a new directory whose whole tree
 *   is allowed goes in one rename), replacing what was there, and loses
 *   overlayfs's attributes.
 *
 * It runs in a confined tool worker (the root, the state directory and the
 * scratch directory are all it can reach), one merge at a time (the host
 * waits for each). Nothing of the command's is followed: entries are taken
 * with `lstat`, and a real directory is entered only once checked to be one.
 *
 * @module
 */

import type { OverlayMarks } from "../../security/overlay_marks.ts";
import type { ToolContext } from "../tool.ts";

/** What a merge did. */
export interface MergeOutcome {
  /** Entries renamed (or deleted) into place. */
  applied: number;
  /** What was not applied, each as `<path> (<why>) → <where it was put>`. */
  setAside: string[];
  /** What the command deleted that was kept, each with why. */
  kept: string[];
}

/** One overlay to merge. */
export interface MergeJob {
  /** The root (real path). */
  root: string;
  /** Its upper directory. */
  upper: string;
  /** Where refused entries go (in the state directory). */
  bin: string;
}

/** What the merge needs of its worker. */
interface Merger {
  ctx: ToolContext;
  marks: OverlayMarks;
  job: MergeJob;
  outcome: MergeOutcome;
}

/**
 * Merge one root's upper directory into it.
 *
 * @param ctx The worker's tool context (its resolver and policy).
 * @param marks overlayfs's marks (opaque directories).
 * @param job The root, its upper directory, where refused entries go.
 * @returns What was applied, set aside and kept.
 */
export function mergeOverlay(ctx: ToolContext, marks: OverlayMarks, job: MergeJob): MergeOutcome {
  const merger: Merger = { ctx, marks, job, outcome: { applied: 0, setAside: [], kept: [] } };
  const stack: string[] = [""];
  while (stack.length > 0) {
    const relative = stack.pop()!;
    for (const name of names(relative === "" ? job.upper : `${job.upper}/${relative}`)) {
      const rel = relative === "" ? name : `${relative}/${name}`;
      try {
        if (mergeEntry(merger, rel)) stack.push(rel);
      } catch (error) {
        // One entry that cannot go in (gone meanwhile, a full disk) stops no other.
        const shown = merger.ctx.resolver.display(`${job.root}/${rel}`);
        merger.outcome.setAside.push(`${shown} (not applied: ${(error as Error).message})`);
      }
    }
  }
  return merger.outcome;
}

/** Merge one upper entry; true when it is a directory whose entries are merged next. */
function mergeEntry(merger: Merger, rel: string): boolean {
  const { job, outcome } = merger;
  const upper = `${job.upper}/${rel}`;
  const real = `${job.root}/${rel}`;
  const info = Deno.lstatSync(upper);
  if (isWhiteout(info)) {
    if (remove(merger, rel)) outcome.applied++;
    return false;
  }
  if (!info.isFile && !info.isDirectory && !info.isSymlink) {
    // A FIFO, socket or device the command made: nothing to keep of it (it dies with the overlay).
    merger.outcome.setAside.push(
      `${
        display(merger, `${job.root}/${rel}`)
      } (not applied: not a regular file, directory or link)`,
    );
    return false;
  }
  const refused = refusal(merger, rel, info);
  if (refused !== undefined) {
    setAside(merger, rel, refused);
    return false;
  }
  const there = lstat(real);
  if (info.isDirectory && there?.isDirectory) {
    if (merger.marks.opaque(upper)) removeHidden(merger, rel);
    if (there.mode !== info.mode && info.mode !== null) Deno.chmodSync(real, info.mode & 0o7777);
    return true;
  }
  // A rename replaces a file or link in place; a directory and a file replace each other by deletion.
  const kinds = there !== undefined && there.isDirectory !== info.isDirectory;
  if (kinds && !remove(merger, rel)) {
    setAside(merger, rel, "what it replaces was kept");
    return false;
  }
  if (info.isDirectory && !treeAllowed(merger, rel)) {
    Deno.mkdirSync(real, { mode: (info.mode ?? 0o755) & 0o7777 });
    outcome.applied++;
    return true;
  }
  place(merger, upper, real);
  return false;
}

/** Why an upper entry may not go to its place, or `undefined` when it may. */
function refusal(merger: Merger, rel: string, info: Deno.FileInfo): string | undefined {
  const { ctx, job } = merger;
  const real = `${job.root}/${rel}`;
  const state = ctx.policy.stateDir;
  if (real === state || real.startsWith(`${state}/`)) return "toolhost's own state";
  if (!info.isFile && !info.isDirectory && !info.isSymlink) {
    return "not a regular file, directory or link";
  }
  const segments = rel.toLowerCase().split("/");
  const git = segments.indexOf(".git");
  if (info.isSymlink && git >= 0) return "git makes no links inside .git";
  // A new repository: its directory may be made; what goes in it is judged by git's allowlist.
  if (info.isDirectory && git === segments.length - 1) return undefined;
  const why = ctx.resolver.protectedWhy(real);
  return why === undefined ? undefined : `protected: ${why}`;
}

/** Whether every entry of a new upper directory may go in (then it goes in whole). */
function treeAllowed(merger: Merger, rel: string): boolean {
  const stack = [rel];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of names(`${merger.job.upper}/${dir}`)) {
      const each = `${dir}/${name}`;
      const info = Deno.lstatSync(`${merger.job.upper}/${each}`);
      if (isWhiteout(info) || refusal(merger, each, info) !== undefined) return false;
      if (info.isDirectory) stack.push(each);
    }
  }
  return true;
}

/**
 * Delete a real entry the command deleted; false (and reported) when it is,
 * or holds, a protected or hidden entry or the state directory.
 */
function remove(merger: Merger, rel: string): boolean {
  const real = `${merger.job.root}/${rel}`;
  const info = lstat(real);
  if (info === undefined) return true;
  const held = heldBack(merger, rel, info);
  if (held !== undefined) {
    merger.outcome.kept.push(`${display(merger, real)} (${held})`);
    return false;
  }
  Deno.removeSync(real, { recursive: true });
  return true;
}

/** Why a real entry (or what it holds) may not be deleted, or `undefined`. */
function heldBack(merger: Merger, rel: string, info: Deno.FileInfo): string | undefined {
  const { ctx, job } = merger;
  const stack: Array<[string, Deno.FileInfo]> = [[rel, info]];
  while (stack.length > 0) {
    const [each, what] = stack.pop()!;
    const real = `${job.root}/${each}`;
    const state = ctx.policy.stateDir;
    if (real === state || state.startsWith(`${real}/`)) return "it holds toolhost's own state";
    const why = ctx.resolver.protectedWhy(real) ?? hiddenWhy(ctx, real);
    if (why !== undefined) return each === rel ? why : `it holds ${each}: ${why}`;
    if (!what.isDirectory) continue;
    for (const name of names(real)) {
      const child = lstat(`${real}/${name}`);
      if (child !== undefined) stack.push([`${each}/${name}`, child]);
    }
  }
  return undefined;
}

/** A hidden entry's reason, as `heldBack` says it. */
function hiddenWhy(ctx: ToolContext, real: string): string | undefined {
  const glob = ctx.resolver.hidden(real);
  return glob === undefined ? undefined : `hidden (${glob})`;
}

/** An opaque directory: delete the real entries its upper one does not have. */
function removeHidden(merger: Merger, rel: string): void {
  const kept = new Set(names(`${merger.job.upper}/${rel}`));
  for (const name of names(`${merger.job.root}/${rel}`)) {
    if (!kept.has(name) && remove(merger, `${rel}/${name}`)) merger.outcome.applied++;
  }
}

/** Rename an upper entry into its real place (copying across file systems), then clear its marks. */
function place(merger: Merger, upper: string, real: string): void {
  try {
    Deno.renameSync(upper, real);
  } catch (error) {
    if (!crossDevice(error)) throw error;
    copyAcross(upper, real);
  }
  clearMarks(merger, real);
  merger.outcome.applied++;
}

/** Take overlayfs's attributes off what was placed (a directory's whole tree). */
function clearMarks(merger: Merger, real: string): void {
  const stack = [real];
  while (stack.length > 0) {
    const path = stack.pop()!;
    merger.marks.clear(path);
    if (lstat(path)?.isDirectory) { for (const name of names(path)) stack.push(`${path}/${name}`); }
  }
}

/** Move a refused entry into the state directory, and say so. */
function setAside(merger: Merger, rel: string, why: string): void {
  const { job, outcome } = merger;
  const target = `${job.bin}/${rel}`;
  Deno.mkdirSync(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  try {
    Deno.renameSync(`${job.upper}/${rel}`, target);
  } catch (error) {
    if (!crossDevice(error)) throw error;
    copyAcross(`${job.upper}/${rel}`, target);
  }
  outcome.setAside.push(
    `${display(merger, `${job.root}/${rel}`)} (${why}) → ${merger.ctx.resolver.display(target)}`,
  );
}

/**
 * Copy an entry across file systems (regular files and directories; a link
 * becomes a `<name>.symlink` file naming its target, as Deno makes no link
 * for a worker with scoped permissions).
 */
function copyAcross(from: string, to: string): void {
  const info = Deno.lstatSync(from);
  if (info.isSymlink) {
    Deno.writeTextFileSync(`${to}.symlink`, `${Deno.readLinkSync(from)}\n`);
  } else if (info.isDirectory) {
    Deno.mkdirSync(to, { mode: (info.mode ?? 0o755) & 0o7777 });
    for (const name of names(from)) copyAcross(`${from}/${name}`, `${to}/${name}`);
  } else {
    const temp = `${to}.${crypto.randomUUID()}.toolhost-tmp`;
    Deno.copyFileSync(from, temp);
    if (info.mode !== null) Deno.chmodSync(temp, info.mode & 0o7777);
    Deno.renameSync(temp, to);
  }
}

/** overlayfs's deletion mark: a character device 0/0. */
function isWhiteout(info: Deno.FileInfo): boolean {
  return info.isCharDevice === true && info.rdev === 0;
}

function crossDevice(error: unknown): boolean {
  return error instanceof Error && /EXDEV|cross-device/i.test(error.message);
}

function display(merger: Merger, real: string): string {
  return merger.ctx.resolver.display(real);
}

/** A directory's entry names, sorted (none when it is gone). */
function names(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
  } catch {
    return []; // not a directory, or gone: nothing to merge there
  }
}

function lstat(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined; // not there
  }
}
