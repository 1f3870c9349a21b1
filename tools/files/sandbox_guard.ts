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
 * The entries are judged in `_guard_entries.ts`, the overlays made and
 * merged in `_guard_overlays.ts`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { guardedEntries, setAside } from "./_guard_entries.ts";
import { makeOverlays, mergeAll } from "./_guard_overlays.ts";

const OVERLAY = z.object({ root: z.string(), scratch: z.string() });

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
