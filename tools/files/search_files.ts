/**
 * `search_files`: find files by glob under a directory, sorted, paged.
 *
 * @module
 */

import { z } from "zod";
import { isGlob } from "../../security/glob.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import { defineTool, type ToolContext } from "../tool.ts";
import { rgFiles, usableRipgrep, type WalkRules } from "./_ripgrep.ts";
import { comparePaths, globMatcher, MAX_WALK_DEPTH, walk } from "../_walk.ts";

/** Find files by name or path glob. */
export const searchFiles = defineTool({
  name: "search_files",
  description:
    "Find files by glob, sorted and paged: `*.py` matches names at any depth, `src/**/*.c` paths under `path`. Skips .git, node_modules, .gitignore'd. Use grep to search contents.",
  input: z.object({
    path: z.string().min(1).default("."),
    pattern: z.string().min(1),
    include_ignored: z.boolean().default(false),
    include_git_and_node_modules: z.boolean().default(false),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(5000).default(200),
  }),
  output: z.object({
    files: z.array(z.string()).describe("Matching files, as paths shown by the host"),
    total: z.number().describe("How many files match in all"),
    truncated: z.boolean().describe("True when more files match than were returned"),
    next_offset: z.number().optional().describe("The offset that returns the next page"),
    engine: z.enum(["ripgrep", "walker"]).describe(
      "What listed the files: ripgrep in the confined worker, or the JS walker",
    ),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Search files", readOnlyHint: true, idempotentHint: true },
  async run(input, ctx) {
    const start = await ctx.fs.resolve(input.path, "directory");
    const match = globMatcher(input.pattern);
    const rules = {
      gitignore: !input.include_ignored,
      skipDefaults: !input.include_git_and_node_modules,
    };
    const skipped = new Skipped();
    const all = await matchingFiles(ctx, start, { ...rules, match, skipped });
    const { offset, limit: max } = input;
    const page = all.files.slice(offset, offset + max);
    const files = all.verify ? verifyListed(ctx, start, page, skipped) : page;
    const shown = files.map((relative) => ctx.resolver.display(`${start.path}/${relative}`));
    // Files ripgrep listed that the check dropped (changed since, or not readable as listed).
    const total = all.files.length - (page.length - files.length);
    const next = offset + page.length;
    const truncated = next < all.files.length;
    const data: Record<string, unknown> = {
      files: shown,
      total,
      truncated,
      engine: all.verify ? "ripgrep" : "walker",
    };
    if (truncated) data.next_offset = next;
    data.skipped = skipped.summary();
    const text = render(input, start, shown, {
      total,
      offset,
      next,
      more: all.files.length - next,
    });
    return {
      content: [{ type: "text", text: skipped.appendTo(text) }],
      structuredContent: data,
    };
  },
});

/** How to search: the walk rules, the glob, and where to count what is left out. */
interface Search extends WalkRules {
  match: (relative: string) => boolean;
  skipped: Skipped;
}

/** The matching files relative to `start`, in walk order; `verify` when ripgrep listed them. */
async function matchingFiles(
  ctx: ToolContext,
  start: ResolvedPath,
  search: Search,
): Promise<{ files: string[]; verify: boolean }> {
  const { match, skipped, ...rules } = search;
  const rg = usableRipgrep(ctx, start, rules);
  const listed = rg ? await rgFiles(ctx, rg, start, rules, match) : undefined;
  if (listed) return { files: withinWalkDepth(ctx, start, listed, skipped), verify: true };
  const files: string[] = [];
  const cut = start.path.length + 1;
  for await (const entry of walk(ctx, start, { ...rules, filesOnly: true, skipped })) {
    const relative = entry.path.slice(cut);
    if (match(relative)) files.push(relative);
  }
  return { files, verify: false };
}

/**
 * Sort what ripgrep listed, and leave out what lies deeper than the walker
 * goes (counting each directory it would not list once), so that both
 * engines give the same files.
 */
function withinWalkDepth(
  ctx: ToolContext,
  start: ResolvedPath,
  listed: string[],
  skipped: Skipped,
): string[] {
  const tooDeep = new Set<string>();
  const files = listed.filter((relative) => {
    const parts = relative.split("/");
    if (parts.length <= MAX_WALK_DEPTH) return true;
    const dir = parts.slice(0, MAX_WALK_DEPTH).join("/");
    if (!tooDeep.has(dir)) {
      tooDeep.add(dir);
      skipped.add(
        ctx.resolver.display(`${start.path}/${dir}`),
        `nested more than ${MAX_WALK_DEPTH} directories deep (not walked)`,
      );
    }
    return false;
  });
  return files.sort(comparePaths);
}

/**
 * Check paths that ripgrep listed the way the walker would see them: each
 * directory listed anchored to its real path (no symlink on the way), the
 * name there as a regular file. Anything else is dropped.
 */
function verifyListed(
  ctx: ToolContext,
  start: ResolvedPath,
  page: string[],
  skipped: Skipped,
): string[] {
  const byDir = new Map<string, Set<string> | Error>();
  return page.filter((relative) => {
    const slash = relative.lastIndexOf("/");
    const dir = slash < 0 ? start.path : `${start.path}/${relative.slice(0, slash)}`;
    if (!byDir.has(dir)) {
      try {
        const names = ctx.fs.list(dir).filter((e) => e.kind === "file").map((e) => e.name);
        byDir.set(dir, new Set(names));
      } catch (error) {
        byDir.set(dir, error instanceof Error ? error : new Error(String(error)));
      }
    }
    const names = byDir.get(dir)!;
    const display = ctx.resolver.display(`${start.path}/${relative}`);
    if (names instanceof Error) skipped.failed(display, names, ctx.logger);
    else if (!names.has(relative.slice(slash + 1))) {
      skipped.add(display, "changed since it was listed");
    } else return true;
    return false;
  });
}

/** Where a page is: the total, its offset, the next page's offset and how many files follow. */
interface PageAt {
  total: number;
  offset: number;
  next: number;
  more: number;
}

function render(
  input: { pattern: string; include_ignored: boolean },
  start: ResolvedPath,
  shown: string[],
  at: PageAt,
): string {
  const { total, offset, next, more } = at;
  const where = start.display;
  if (total === 0) {
    const hints: string[] = [];
    if (!isGlob(input.pattern)) {
      hints.push(
        `the pattern is a glob over whole names: use "*${input.pattern}*" to match part of a name`,
      );
    }
    if (!input.include_ignored) {
      hints.push("files ignored by .gitignore were skipped (include_ignored: true lists them)");
    }
    return `No files match "${input.pattern}" under ${where}${
      hints.length ? `\n(${hints.join("; ")})` : ""
    }`;
  }
  const note = more > 0 ? `\n[${more} more: call again with offset ${next}]` : "";
  if (shown.length === 0) {
    const why = next > offset
      ? "none on this page could be listed"
      : `offset ${offset} is past the end`;
    return `${total} files match "${input.pattern}" under ${where}; ${why}${note}`;
  }
  // Positions in the listing (ripgrep's files that the check dropped keep theirs).
  const first = offset + 1;
  const header = `${total} file${total === 1 ? "" : "s"} match "${input.pattern}" under ${where}` +
    (first === 1 && more === 0 ? ":" : ` (${first}-${next}):`);
  return `${header}\n${shown.join("\n")}${note}`;
}
