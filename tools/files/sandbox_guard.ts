/**
 * `sandbox_guard`: the part of a sandboxed run (`run_shell`) that reads the
 * roots, done where every read of the project is done — in a confined tool
 * worker, through the resolver. The host calls it itself; it is internal.
 *
 * - `before`: where the program starts (the resolved `cwd`), and the paths
 *   the sandbox mounts read-only or empty over themselves: the protected
 *   entries at the top of each root and inside its `.git` directory, and the
 *   blacklisted entries at the top of each root.
 * - `after`, over overlays (`security/sandbox_overlay.ts`): what the program
 *   wrote waited in each root's upper directory; it is merged into the root
 *   now, protected paths refused (`_overlay_merge.ts`), and the scratch
 *   directory removed.
 * - `after`, writing straight to the roots (where overlays cannot be used):
 *   a protected name the program created where nothing existed before
 *   could not be mounted away; it is moved out of the root into the state
 *   directory (`set-aside/<time>/`), and the answer says so. Only the top of
 *   each root and its `.git` are looked at there.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import type { OverlayMarks } from "../../security/overlay_marks.ts";
import { overlaidRoots } from "../../security/sandbox_overlay.ts";
import { OVERLAY_MARKS_SERVICE } from "../sandbox.ts";
import { defineTool, structured, type ToolContext } from "../tool.ts";
import { type MergeOutcome, mergeOverlay } from "./_overlay_merge.ts";

/** A run's scratch directories older than this are a host's that stopped mid-run: removed. */
const STALE_RUN_MS = 24 * 60 * 60 * 1000;

const OVERLAY = z.object({ root: z.string(), scratch: z.string() });

/** What the tops of the roots (and their `.git`) hold that the sandbox must know of. */
interface Guarded {
  /** Protected entries that can be mounted read-only over themselves (not links), real paths. */
  protectedPaths: string[];
  /** Every protected entry there, links and repositories (`.git`) included, with its identity. */
  present: string[];
  /** Blacklisted entries: mounted empty. */
  hidden: Array<{ path: string; dir: boolean }>;
}

/** Resolve a run's cwd and list what to mount away; or set aside what the run created. */
export const sandboxGuard = defineTool({
  name: "sandbox_guard",
  description:
    "Before a sandboxed run: resolve its cwd and list the protected and hidden entries at the top of each root and in .git. After it: set aside protected entries it created. The host calls it itself.",
  input: z.object({
    mode: z.enum(["before", "after"]),
    cwd: z.string().max(4096).optional().describe("before: where the run starts"),
    seen: z.array(z.string()).max(10_000).optional().describe("after: what `before` saw"),
    stamp: z.string().regex(/^[0-9TZ.:-]{1,40}$/).optional().describe("after: the run's time"),
    overlay: z.boolean().optional().describe("before: make the run's overlays"),
    overlays: z.array(OVERLAY).max(64).optional().describe("after: the overlays to merge"),
  }),
  output: z.object({
    cwd: z.string().optional(),
    protected_paths: z.array(z.string()).optional(),
    seen: z.array(z.string()).optional().describe("before: every protected entry there, for after"),
    hidden: z.array(z.object({ path: z.string(), dir: z.boolean() })).optional(),
    overlays: z.array(OVERLAY).optional().describe("before: each root's scratch directory"),
    set_aside: z.array(z.string()).optional(),
    kept: z.array(z.string()).optional(),
    applied: z.number().optional(),
  }),
  annotations: { title: "Sandbox guard", readOnlyHint: false, destructiveHint: false },
  internal: true,
  run({ mode, cwd, seen, stamp, overlay, overlays }, ctx) {
    const time = stamp ?? new Date().toISOString();
    if (mode === "before") {
      const start = ctx.resolver.resolveSync(cwd ?? ".", { want: "directory" }).path;
      const guarded = guardedEntries(ctx);
      return structured(`cwd ${start}`, {
        cwd: start,
        protected_paths: guarded.protectedPaths,
        seen: guarded.present,
        hidden: guarded.hidden,
        ...(overlay ? { overlays: makeOverlays(ctx, time) } : {}),
      });
    }
    if (overlays !== undefined) {
      const merged = mergeAll(ctx, overlays, time);
      return structured(`${merged.applied} applied`, {
        set_aside: merged.setAside,
        kept: merged.kept,
        applied: merged.applied,
      });
    }
    const moved = setAside(ctx, new Set(seen ?? []), time);
    return structured(moved.length === 0 ? "nothing set aside" : moved.join("\n"), {
      set_aside: moved,
    });
  },
});

/**
 * Make a run's overlays: for each outermost root, an empty `upper` and
 * `work` in a fresh directory under the scratch directory (and remove runs
 * left by a host that stopped mid-run).
 */
function makeOverlays(ctx: ToolContext, stamp: string): Array<{ root: string; scratch: string }> {
  const base = ctx.policy.scratch.dir;
  if (base === null) {
    throw new ToolError(
      "unsupported",
      `overlays need a scratch directory: ${ctx.policy.scratch.reason}`,
    );
  }
  if (marksOf(ctx) === undefined) {
    throw new ToolError("unsupported", "overlays need libc's attribute calls in the tool workers");
  }
  // Once per worker: runs left by a host that stopped mid-run.
  ctx.shared("sandbox_guard.swept", () => removeStaleRuns(base));
  const run = `${base}/${stampName(stamp)}-${crypto.randomUUID().slice(0, 8)}`;
  return overlaidRoots(ctx.policy.roots).map((root, i) => {
    const scratch = `${run}/${i}`;
    Deno.mkdirSync(`${scratch}/upper`, { recursive: true, mode: 0o700 });
    Deno.mkdirSync(`${scratch}/work`, { mode: 0o700 });
    return { root, scratch };
  });
}

/** Merge every overlay of a run, then remove its scratch directory. */
function mergeAll(
  ctx: ToolContext,
  overlays: ReadonlyArray<{ root: string; scratch: string }>,
  stamp: string,
): MergeOutcome {
  const marks = marksOf(ctx);
  const base = ctx.policy.scratch.dir;
  const total: MergeOutcome = { applied: 0, setAside: [], kept: [] };
  for (const { root, scratch } of overlays) {
    const index = ctx.policy.roots.indexOf(root);
    if (marks === undefined || base === null || index < 0 || !scratch.startsWith(`${base}/`)) {
      throw new ToolError("internal_error", `not an overlay of this host: ${scratch}`);
    }
    const bin = `${setAsideDir(ctx, stamp)}/${index}`;
    const merged = mergeOverlay(ctx, marks, { root, upper: `${scratch}/upper`, bin });
    total.applied += merged.applied;
    total.setAside.push(...merged.setAside);
    total.kept.push(...merged.kept);
  }
  const run = overlays[0]?.scratch.replace(/\/[^/]+$/, "");
  try {
    if (run !== undefined) removeRun(run);
  } catch {
    // Merged, but not all of the scratch could go: the next run's sweep removes it within a day.
  }
  return total;
}

/** Where a run's refused entries go: `<state>/set-aside/<time>`. */
function setAsideDir(ctx: ToolContext, stamp: string): string {
  return `${ctx.policy.stateDir}/set-aside/${stampName(stamp)}`;
}

/** A run's time as a file name. */
function stampName(stamp: string): string {
  return stamp.replace(/[:.]/g, "-");
}

/** The worker's overlay marks, when it could load them. */
function marksOf(ctx: ToolContext): OverlayMarks | undefined {
  return ctx.shared<OverlayMarks | undefined>(OVERLAY_MARKS_SERVICE, () => undefined);
}

/** Remove a run's scratch directory (overlayfs leaves its `work/work` with mode 000). */
function removeRun(run: string): void {
  for (const entry of entries(run)) {
    try {
      Deno.chmodSync(`${run}/${entry.name}/work/work`, 0o700);
    } catch {
      // Never mounted (the run failed to start): there is no work/work to open up.
    }
  }
  Deno.removeSync(run, { recursive: true });
}

/** Remove the runs of a host that stopped before it merged them. */
function removeStaleRuns(base: string): true {
  for (const entry of entries(base)) {
    const path = `${base}/${entry.name}`;
    try {
      const age = Date.now() - (Deno.lstatSync(path).mtime?.getTime() ?? Date.now());
      if (entry.isDirectory && age > STALE_RUN_MS) removeRun(path);
    } catch {
      // Another host's run, or one removed meanwhile: left as it is.
    }
  }
  return true;
}

/** The protected and blacklisted entries at the top of each root and in its `.git`. */
function guardedEntries(ctx: ToolContext): Guarded {
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
function setAside(ctx: ToolContext, seen: ReadonlySet<string>, stamp: string): string[] {
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
function entries(dir: string): Deno.DirEntry[] {
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
