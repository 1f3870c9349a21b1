/**
 * `git_show`: a commit's header, stat and diff (hunks located as
 * `path:start-end`), or a file's content at a revision (numbered lines),
 * a page at a time.
 *
 * @module
 */

import { posix } from "node:path";
import { z } from "zod";
import { pageData } from "../files/read_file.ts";
import { splitLines } from "../_text.ts";
import { defineTool, type ToolContext, ToolError, type ToolResult } from "../tool.ts";
import { checkRev, runGit } from "./_git.ts";
import { hiddenNames, hiddenNote, pathspecsWithout } from "./_hidden.ts";
import { displayPath, type GitTarget, openRepo } from "./_repo.ts";
import { pageLines, pageNote, renderDiff, type ToolCall } from "./_render.ts";
import { DEFAULT_DIFF_LINES, DIFF_FLAGS } from "./get_git_diff.ts";

/** A commit's header; its message is indented, as `git show` has it, so that no line of it reads as a diff's. */
const FORMAT = "--format=commit %H%nParents: %p%nAuthor: %an <%ae>%nDate:   %ad%n%n%w(0,4,4)%B";

/** A commit, or a file at a revision. */
export const gitShow = defineTool({
  name: "git_show",
  description:
    "Show a git commit (header, stat and diff, hunks as path:start-end), or with path, that file's content (or directory listing) at rev. Paged.",
  input: z.object({
    rev: z.string().min(1).describe("A commit, branch or tag (`HEAD~1`, `v1.2`)"),
    path: z.string().min(1).optional().describe("Show this file at rev instead of the commit"),
    offset: z.number().int().min(1).default(1).describe("First output line, 1-based"),
    limit: z.number().int().min(1).max(5000).optional().describe("Most lines (default 1000)"),
  }),
  annotations: { title: "Git show", readOnlyHint: true, idempotentHint: true },
  async run({ rev, path, offset, limit }, ctx) {
    checkRev("rev", rev);
    const target = await openRepo(ctx, "git_show", path);
    const call: ToolCall = { name: "git_show", args: { rev, path, limit } };
    const request = { offset, limit: limit ?? DEFAULT_DIFF_LINES, call };
    return path === undefined
      ? await showCommit(ctx, target, rev, request)
      : await showFile(ctx, target, rev, request);
  },
});

/** Where a page starts, how long it is, and the call for the rest. */
interface ShowRequest {
  offset: number;
  limit: number;
  call: ToolCall;
}

/** A commit: header, stat and located diff. */
async function showCommit(
  ctx: ToolContext,
  target: GitTarget,
  rev: string,
  request: ShowRequest,
): Promise<ToolResult> {
  const flags = DIFF_FLAGS.filter((flag) => flag !== "--find-renames");
  const names = await hiddenNames(ctx, target, "git_show", [
    "show",
    ...flags,
    "--format=",
    "--name-only",
    "-z",
    "--no-renames",
    "--end-of-options",
    rev,
  ], ".");
  // Every change hidden: the header alone (a pathspec that leaves all out would show nothing).
  const shows = names.hidden.length === 0
    ? ["--stat", "--patch", "--end-of-options", rev]
    : names.hidden.length === names.count
    ? ["--no-patch", "--end-of-options", rev]
    : [
      "--stat",
      "--patch",
      "--end-of-options",
      rev,
      "--",
      ...pathspecsWithout(".", names.hidden),
    ];
  const result = await runGit(ctx, {
    args: ["show", ...DIFF_FLAGS, FORMAT, "--date=iso", ...shows],
    cwd: target.top,
    tool: "git_show",
    overrides: target.overrides,
    magicPathspecs: names.hidden.length > 0,
  });
  const diff = renderDiff(ctx, target.top, result.stdout);
  const page = pageLines(ctx, diff.lines, { ...request, label: `git_show of "${rev}"` });
  const hunks = diff.hunks.filter((hunk) => hunk.line >= page.start && hunk.line <= page.end)
    .map(({ path, start, end }) => ({ path, start, end }));
  const hidden = names.hidden.map((name) => displayPath(ctx, posix.join(target.top, name)));
  const note = [pageNote(page, request.call), ...(hidden.length ? [hiddenNote(hidden)] : [])];
  return withNote(page.text, note.filter((each) => each !== undefined).join("\n") || undefined, {
    rev,
    ...pageData(page),
    hunks,
    ...(hidden.length ? { hidden } : {}),
  });
}

/** A file's content (numbered lines) or a directory's listing at a revision. */
async function showFile(
  ctx: ToolContext,
  target: GitTarget,
  rev: string,
  request: ShowRequest,
): Promise<ToolResult> {
  const object = target.spec === "." ? `${rev}:` : `${rev}:${target.spec}`;
  const result = await runGit(ctx, {
    args: ["show", "--no-color", "--no-textconv", "--end-of-options", object],
    cwd: target.top,
    tool: "git_show",
    overrides: target.overrides,
  });
  if (result.stdout.slice(0, 8000).includes("\0")) {
    throw new ToolError(
      "binary_file",
      `Cannot show "${target.display}" at ${rev}: it is a binary file of ${result.stdoutBytes} bytes`,
    );
  }
  const tree = result.stdout.startsWith(`tree ${object}\n`);
  const lines = splitLines(result.stdout);
  if (lines.length === 0) {
    return withNote("", `[${target.display} at ${rev} is empty]`, { rev, path: target.display });
  }
  const page = pageLines(ctx, lines, {
    ...request,
    lineNumbers: !tree,
    label: `"${target.display}" at ${rev}`,
  });
  const title = `${target.display} at ${rev}${tree ? " (directory)" : ""}:\n`;
  return withNote(`${title}${page.text}`, pageNote(page, request.call), {
    rev,
    path: target.display,
    ...pageData(page),
  });
}

/** A result of a text, its note when there is one, and its data. */
function withNote(
  text: string,
  note: string | undefined,
  data: Record<string, unknown>,
): ToolResult {
  const result: ToolResult = { content: [{ type: "text", text }], structuredContent: data };
  if (note !== undefined) result.content.push({ type: "text", text: note });
  return result;
}
