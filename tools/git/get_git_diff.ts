/**
 * `get_git_diff`: the diff of a file or directory (seed 001), working tree
 * against HEAD by default, a page of lines at a time, each hunk located as
 * `path:start-end`.
 *
 * @module
 */

import { posix } from "node:path";
import { z } from "zod";
import { pageData } from "../files/read_file.ts";
import { defineTool, type ToolContext, ToolError, type ToolResult } from "../tool.ts";
import { checkRev, runGit } from "./_git.ts";
import { hiddenNames, hiddenNote, pathspecsWithout } from "./_hidden.ts";
import { displayPath, type GitTarget, openRepo } from "./_repo.ts";
import { type Hunk, pageLines, pageNote, renderDiff } from "./_render.ts";

/** The most diff lines a call returns when it does not say. */
export const DEFAULT_DIFF_LINES = 1000;

/** The options of every diff the git tools ask for: nothing configured runs, nothing is colored. */
export const DIFF_FLAGS: readonly string[] = Object.freeze([
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--submodule=short",
  "--ignore-submodules=dirty",
  "--find-renames",
]);

/** Git diff output for a file or directory. */
export const getGitDiff = defineTool({
  name: "get_git_diff",
  description:
    "Git diff output for a file or directory: working tree vs HEAD by default, base_rev vs working tree, or base_rev vs head_rev. Paged; each hunk starts with path:start-end.",
  input: z.object({
    path: z.string().min(1).describe("File or directory; `.` for the whole root"),
    base_rev: z.string().optional().describe("Compare from this revision (default HEAD)"),
    head_rev: z.string().optional().describe("Compare to this revision (default: working tree)"),
    offset: z.number().int().min(1).default(1).describe("First output line, 1-based"),
    limit: z.number().int().min(1).max(5000).optional().describe("Most lines (default 1000)"),
  }),
  annotations: { title: "Git diff", readOnlyHint: true, idempotentHint: true },
  async run({ path, base_rev, head_rev, offset, limit }, ctx) {
    if (head_rev !== undefined && base_rev === undefined) {
      throw new ToolError(
        "invalid_argument",
        "Cannot diff to head_rev without base_rev: give both",
      );
    }
    const revs = [base_rev, head_rev].filter((rev) => rev !== undefined)
      .map((rev, i) => checkRev(i === 0 ? "base_rev" : "head_rev", rev));
    const target = await openRepo(ctx, "get_git_diff", path);
    const { args, compared } = diffArgs(target, revs);
    const { stdout, hidden } = await diffWithoutHidden(ctx, target, args);
    const result = stdout === ""
      ? {
        content: [{
          type: "text" as const,
          text: `No differences in "${target.display}" (${compared})`,
        }],
      }
      : diffPage(ctx, target, stdout, {
        compared,
        offset,
        limit,
        call: { path, base_rev, head_rev, limit },
      });
    if (hidden.length === 0) return result;
    result.content.push({ type: "text", text: hiddenNote(hidden) });
    return result;
  },
});

/**
 * A diff's output without the paths the host hides (git lists the changed
 * names first, reading no content), and those paths as the model names them.
 */
async function diffWithoutHidden(
  ctx: ToolContext,
  target: GitTarget,
  args: readonly string[],
): Promise<{ stdout: string; hidden: string[] }> {
  const [command, ...rest] = args;
  const names = await hiddenNames(ctx, target, "get_git_diff", [
    command!,
    "--name-only",
    "-z",
    "--no-renames",
    ...rest.filter((arg) => arg !== "--find-renames"),
  ]);
  if (names.count === 0) return { stdout: "", hidden: [] };
  const leftOut = names.hidden.length > 0;
  const result = await runGit(ctx, {
    args: [
      ...args,
      "--",
      ...(leftOut ? pathspecsWithout(target.spec, names.hidden) : [target.spec]),
    ],
    cwd: target.top,
    tool: "get_git_diff",
    overrides: target.overrides,
    magicPathspecs: leftOut,
  });
  const hidden = names.hidden.map((name) => displayPath(ctx, posix.join(target.top, name)));
  return { stdout: result.stdout, hidden };
}

/** The diff's arguments (its pathspecs come after) and what it compares, in words. */
function diffArgs(target: GitTarget, revs: string[]): { args: string[]; compared: string } {
  const [base, head] = revs;
  if (base !== undefined && head !== undefined) {
    return {
      args: ["diff", ...DIFF_FLAGS, "--end-of-options", base, head],
      compared: `${base} vs ${head}`,
    };
  }
  if (base !== undefined) {
    return {
      args: ["diff", ...DIFF_FLAGS, "--end-of-options", base],
      compared: `${base} vs working tree`,
    };
  }
  if (!target.hasHead) {
    return {
      args: ["diff", ...DIFF_FLAGS],
      compared: "no commit yet: index vs working tree",
    };
  }
  return {
    args: ["diff", ...DIFF_FLAGS, "--end-of-options", "HEAD"],
    compared: "HEAD vs working tree",
  };
}

/** How a page of a diff was asked for. */
interface DiffPageRequest {
  compared: string;
  offset: number;
  limit: number | undefined;
  call: Record<string, string | number | undefined>;
}

/** A page of a diff: the located lines, the note, the hunks it shows. */
function diffPage(
  ctx: ToolContext,
  target: GitTarget,
  output: string,
  request: DiffPageRequest,
): ToolResult {
  const diff = renderDiff(ctx, target.top, output);
  const page = pageLines(ctx, diff.lines, {
    offset: request.offset,
    limit: request.limit ?? DEFAULT_DIFF_LINES,
    label: `the diff of "${target.display}"`,
  });
  const hunks = diff.hunks.filter((hunk: Hunk) => hunk.line >= page.start && hunk.line <= page.end)
    .map(({ path, start, end }) => ({ path, start, end }));
  const note = pageNote(page, { name: "get_git_diff", args: request.call });
  const result: ToolResult = {
    content: [{ type: "text", text: page.text }],
    structuredContent: {
      path: target.display,
      compared: request.compared,
      ...pageData(page),
      hunks,
    },
  };
  if (note !== undefined) result.content.push({ type: "text", text: note });
  return result;
}
