/**
 * `detect_languages`: which of some file extensions occur in the roots. The
 * host asks it at start, so that a language's tools are listed only where
 * that language is; it is internal (never listed, never switched off), and
 * runs in a tool worker like every read of the project: the host lists no
 * directory itself.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured, type ToolContext } from "../tool.ts";
import { walk } from "../_walk.ts";
import { extensionOf } from "../family.ts";

/** Files looked at, at most, in all the roots. */
export const DETECT_MAX_FILES = 20_000;

/** How long the walk may take, at most, in milliseconds. */
export const DETECT_MAX_MS = 2_000;

/** Which extensions are in the roots: a bounded walk that stops once it found them all. */
export const detectLanguages = defineTool({
  name: "detect_languages",
  description:
    "Say which of the given file extensions occur in the roots (a bounded walk that honours .gitignore and skips .git, node_modules and hidden directories). The host calls it itself.",
  input: z.object({
    extensions: z.array(z.string().regex(/^\.[a-z0-9+_-]{1,16}$/)).max(64)
      .describe("Lower-case extensions with the dot"),
    markers: z.array(z.string().regex(/^[^/\0]{1,64}$/)).max(16).default([])
      .describe("Names looked for at the top of each root (`.git`)"),
  }),
  output: z.object({
    found: z.array(z.string()).describe("The extensions found, and each marker found as `/<name>`"),
    files: z.number().describe("How many files were looked at"),
    complete: z.boolean().describe("False when the walk stopped at its bound"),
  }),
  annotations: { title: "Detect languages", readOnlyHint: true },
  internal: true,
  async run({ extensions, markers }, ctx) {
    const wanted = new Set(extensions);
    const found = new Set<string>();
    const walked = await walkRoots(ctx, (name) => {
      const extension = extensionOf(name);
      if (extension !== undefined && wanted.has(extension)) found.add(extension);
      return found.size === wanted.size;
    });
    const list = [...found, ...markersAt(ctx, markers)].sort();
    return structured(
      `${list.length > 0 ? list.join(" ") : "none"} in ${walked.files} files${
        walked.complete ? "" : " (stopped at the bound)"
      }`,
      { found: list, files: walked.files, complete: walked.complete },
    );
  },
});

/** The markers that some root holds at its top, each as `/<name>`. */
function markersAt(ctx: ToolContext, markers: readonly string[]): string[] {
  return markers.filter((marker) =>
    ctx.policy.roots.some((root) => {
      try {
        Deno.lstatSync(`${root}/${marker}`);
        return true;
      } catch {
        return false; // not in this root
      }
    })
  ).map((marker) => `/${marker}`);
}

/**
 * Walk every root's files until `seen` says it has what it wants, or the
 * bound is reached. Files under a hidden directory (`.venv`, `.tox`) do not count.
 */
async function walkRoots(
  ctx: ToolContext,
  seen: (name: string) => boolean,
): Promise<{ files: number; complete: boolean }> {
  const started = performance.now();
  let files = 0;
  for (const root of ctx.policy.roots) {
    const start = await ctx.fs.resolve(root, "directory");
    for await (const entry of walk(ctx, start, { filesOnly: true })) {
      files++;
      const hidden = entry.path.slice(start.path.length).split("/").slice(0, -1)
        .some((part) => part.startsWith("."));
      if (!hidden && seen(entry.name)) return { files, complete: true };
      if (files >= DETECT_MAX_FILES || performance.now() - started > DETECT_MAX_MS) {
        return { files, complete: false };
      }
    }
  }
  return { files, complete: true };
}
