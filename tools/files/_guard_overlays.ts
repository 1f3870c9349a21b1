/**
 * A sandboxed run's overlays (`security/sandbox_overlay.ts`): before the
 * run, an empty upper and work directory for each outermost root in a fresh
 * scratch directory (runs left by a host that stopped mid-run are swept
 * first); after it, what the run wrote merged into each root
 * (`_overlay_merge.ts`), and the scratch directory removed.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { OverlayMarks } from "../../security/overlay_marks.ts";
import { overlaidRoots } from "../../security/sandbox_overlay.ts";
import { OVERLAY_MARKS_SERVICE } from "../sandbox.ts";
import type { ToolContext } from "../tool.ts";
import { entries, setAsideDir, stampName } from "./_guard_entries.ts";
import { type MergeOutcome, mergeOverlay } from "./_overlay_merge.ts";

/** A run's scratch directories older than this are a host's that stopped mid-run: removed. */
const STALE_RUN_MS = 24 * 60 * 60 * 1000;

/**
 * Make a run's overlays: for each outermost root, an empty `upper` and
 * `work` in a fresh directory under the scratch directory (and remove runs
 * left by a host that stopped mid-run).
 */
export function makeOverlays(
  ctx: ToolContext,
  stamp: string,
): Array<{ root: string; scratch: string }> {
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
export function mergeAll(
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
