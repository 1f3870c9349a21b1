/**
 * What a sandboxed run must not change at the top of each root and in its
 * `.git`: the protected entries (mounted read-only over themselves) and the
 * hidden ones (mounted empty), listed before the run with their identity;
 * and after a run that wrote straight to the roots, the protected entries it
 * created or replaced, moved out into the state directory
 * (`set-aside/<time>/`).
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { ToolContext } from "../tool.ts";

/** What the tops of the roots (and their `.git`) hold that the sandbox must know of. */
export interface Guarded {
  /** Protected entries that can be mounted read-only over themselves (not links), real paths. */
  protectedPaths: string[];
  /** Every protected entry there, links and repositories (`.git`) included, with its identity. */
  present: string[];
  /** Blacklisted entries: mounted empty. */
  hidden: Array<{ path: string; dir: boolean }>;
}

/** Where a run's refused entries go: `<state>/set-aside/<time>`. */
export function setAsideDir(ctx: ToolContext, stamp: string): string {
  return `${ctx.policy.stateDir}/set-aside/${stampName(stamp)}`;
}

/** A run's time as a file name. */
export function stampName(stamp: string): string {
  return stamp.replace(/[:.]/g, "-");
}

/** The protected and blacklisted entries at the top of each root and in its `.git`. */
export function guardedEntries(ctx: ToolContext): Guarded {
  const guarded: Guarded = { protectedPaths: [], present: [], hidden: [] };
  const found = (path: string, entry: Deno.DirEntry) => {
    guarded.present.push(identity(path));
    if (!entry.isSymlink) guarded.protectedPaths.push(path);
  };
  for (const root of ctx.policy.roots) {
    for (const entry of entries(root)) {
      const path = `${root}/${entry.name}`;
      if (path === ctx.policy.stateDir) continue; // the sandbox empties it anyway
      if (ctx.resolver.hidden(path) !== undefined) {
        guarded.hidden.push({ path, dir: entry.isDirectory });
      } else if (entry.name === ".git" && entry.isDirectory && !entry.isSymlink) {
        // A repository stays writable (git writes its index and objects); what runs or
        // configures git in it does not.
        guarded.present.push(identity(path));
        for (const inner of entries(path)) {
          const innerPath = `${path}/${inner.name}`;
          if (ctx.resolver.protectedWhy(innerPath) !== undefined) found(innerPath, inner);
        }
      } else if (ctx.resolver.protectedWhy(path) !== undefined) {
        found(path, entry);
      }
    }
  }
  for (const file of ctx.policy.protectedFiles) {
    const inRoot = ctx.resolver.locate(file.path) !== undefined;
    if (inRoot && file.path !== ctx.policy.stateDir && exists(file.path)) {
      guarded.protectedPaths.push(file.path);
      guarded.present.push(identity(file.path));
    }
  }
  // Hidden entries deeper down, found at start, that are still there (not beneath one hidden already).
  for (const entry of ctx.policy.hiddenEntries) {
    const covered = guarded.hidden.some((each) => entry.path.startsWith(`${each.path}/`));
    if (!covered && exists(entry.path)) guarded.hidden.push({ ...entry });
  }
  return {
    ...guarded,
    protectedPaths: [...new Set(guarded.protectedPaths)],
    present: [...new Set(guarded.present)],
    hidden: [...new Map(guarded.hidden.map((each) => [each.path, each])).values()],
  };
}

/**
 * A protected entry with its identity (device and inode, never following a
 * link): one that was replaced, or a link put in its place, is not the one
 * seen before.
 */
function identity(path: string): string {
  try {
    const info = Deno.lstatSync(path);
    return `${path}\t${info.dev}:${info.ino}`;
  } catch {
    return `${path}\t-`; // gone meanwhile: not there to set aside
  }
}

/**
 * Move the protected entries that appeared at the top of a root or in its
 * `.git`, or were put in the place of one seen before the run (another
 * inode: a link, a new file), into the state directory.
 */
export function setAside(ctx: ToolContext, seen: ReadonlySet<string>, stamp: string): string[] {
  const fresh = guardedEntries(ctx).present.filter((each) => !seen.has(each))
    .map((each) => each.slice(0, each.lastIndexOf("\t")));
  // A repository that appeared goes whole, with what it holds.
  const now = fresh.filter((path) => !fresh.some((other) => path.startsWith(`${other}/`)));
  const moved: string[] = [];
  const bin = setAsideDir(ctx, stamp);
  for (const path of now) {
    const where = ctx.resolver.locate(path);
    if (where === undefined) continue; // a protected file by path outside the roots: not ours
    const why = ctx.resolver.protectedWhy(path) ?? "protected";
    const target = `${bin}/${ctx.policy.roots.indexOf(where.root)}/${where.relative}`;
    try {
      Deno.mkdirSync(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      moveAside(path, target);
    } catch (error) {
      throw new ToolError(
        "denied",
        `the command created ${where.relative} (protected: ${why}) and it could not be set aside: ${
          (error as Error).message
        }; remove it yourself`,
      );
    }
    moved.push(`${where.relative} (protected: ${why}) → ${ctx.resolver.display(target)}`);
  }
  return moved;
}

/**
 * Move an entry out of the root. A link is kept as a file naming its target
 * (`<name>.symlink`) and removed: this thread may make no links (Landlock).
 */
function moveAside(path: string, target: string): void {
  if (Deno.lstatSync(path).isSymlink) {
    Deno.writeTextFileSync(`${target}.symlink`, `${Deno.readLinkSync(path)}\n`);
    Deno.removeSync(path);
  } else {
    Deno.renameSync(path, target);
  }
}

/** A directory's entries, without following a link; none when it is gone. */
export function entries(dir: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(dir)];
  } catch {
    return []; // gone or not a directory: nothing there to guard
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false; // not there: nothing to mount over
  }
}
