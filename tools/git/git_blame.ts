/**
 * `git_blame`: who last changed each line of a file, as
 * `path:line <short hash> <author> <date> | text` rows, a range of lines
 * at a time.
 *
 * @module
 */

import { z } from "zod";
import { readBudget } from "../files/read_file.ts";
import { jsonBytes } from "../reply_bound.ts";
import { defineTool, ToolError } from "../tool.ts";
import { checkRev, runGit, sanitize } from "./_git.ts";
import { openRepo } from "./_repo.ts";
import { callText } from "./_render.ts";

/** Lines blamed when the call does not say. */
export const DEFAULT_BLAME_LINES = 400;

/** The most lines one call blames. */
export const MAX_BLAME_LINES = 2000;

/** One blamed line. */
export interface BlameLine {
  /** Its number in the file. */
  readonly line: number;
  /** The commit that last changed it (all zeros: not committed yet). */
  readonly commit: string;
  /** That commit's author. */
  readonly author: string;
  /** Its author date, `YYYY-MM-DD`, in the author's time zone. */
  readonly date: string;
  /** The line's text, without its line ending. */
  readonly text: string;
}

/** Who last changed each line. */
export const gitBlame = defineTool({
  name: "git_blame",
  description:
    "Git blame of a file: `path:line hash author date | text` rows, 400 lines per call by default (start_line/end_line for a range); rev blames an older version.",
  input: z.object({
    path: z.string().min(1),
    start_line: z.number().int().min(1).default(1),
    end_line: z.number().int().min(1).optional().describe("Last line (default start_line + 399)"),
    rev: z.string().optional().describe("Blame the file as of this revision"),
  }),
  annotations: { title: "Git blame", readOnlyHint: true, idempotentHint: true },
  async run({ path, start_line, end_line, rev }, ctx) {
    const end = blameEnd(start_line, end_line);
    const at = rev === undefined ? [] : [checkRev("rev", rev)];
    const target = await openRepo(ctx, "git_blame", path);
    if (target.spec === ".") {
      throw new ToolError("invalid_argument", `Cannot blame "${target.display}": give a file`);
    }
    // One line past the range says whether the file goes on.
    const range = `${start_line},${end + 1}`;
    const result = await runGit(ctx, {
      args: ["blame", "--porcelain", "--no-textconv", "-L", range, ...at, "--", target.spec],
      cwd: target.top,
      tool: "git_blame",
      overrides: target.overrides,
    });
    const all = parseBlame(result.stdout);
    const { rows, lines } = blameRows(
      target.display,
      all.slice(0, end - start_line + 1),
      readBudget(ctx),
    );
    const shownEnd = lines.at(-1)?.line ?? start_line - 1;
    const more = all.length > lines.length;
    if (more) {
      const next = callText({ name: "git_blame", args: { path, start_line: shownEnd + 1, rev } });
      rows.push(`[lines ${start_line}-${shownEnd}; ${next} for more]`);
    }
    return {
      content: [{ type: "text", text: rows.join("\n") }],
      structuredContent: { path: target.display, start_line, end_line: shownEnd, more, lines },
    };
  },
});

/** The last line to blame: the one asked for (or the default range's), at most the most lines. */
function blameEnd(start: number, end: number | undefined): number {
  const last = end ?? start + DEFAULT_BLAME_LINES - 1;
  if (last < start) {
    throw new ToolError(
      "invalid_argument",
      `Cannot blame lines ${start}-${last}: end_line is before start_line`,
    );
  }
  return Math.min(last, start + MAX_BLAME_LINES - 1);
}

/** The rows of blamed lines, as many as fit the reply's bytes (at least one). */
function blameRows(
  display: string,
  blamed: readonly BlameLine[],
  budget: number,
): { rows: string[]; lines: BlameLine[] } {
  const rows: string[] = [];
  const lines: BlameLine[] = [];
  let bytes = 0;
  for (const line of blamed) {
    const hash = shortHash(line.commit);
    const row = `${display}:${line.line} ${hash} ${line.author} ${line.date} | ${line.text}`;
    bytes += jsonBytes(row) + jsonBytes(line);
    if (bytes > budget && rows.length > 0) break;
    rows.push(row);
    lines.push(line);
  }
  return { rows, lines };
}

/** A commit's short hash, or `uncommitted` for the working tree's changes. */
function shortHash(commit: string): string {
  return /^0+$/.test(commit) ? "uncommitted" : commit.slice(0, 8);
}

/**
 * Parse `git blame --porcelain` output: each line's commit, with the
 * commit's author and date given at its first line only.
 *
 * @param output Git's output.
 * @returns The lines, in order.
 */
export function parseBlame(output: string): BlameLine[] {
  const commits = new Map<string, { author: string; time: number; tz: string }>();
  const lines: BlameLine[] = [];
  let current: { commit: string; line: number } | undefined;
  for (const raw of output.split("\n")) {
    if (raw.startsWith("\t")) {
      if (current === undefined) continue;
      const info = commits.get(current.commit) ?? { author: "", time: 0, tz: "+0000" };
      lines.push({
        ...current,
        author: info.author,
        date: authorDate(info.time, info.tz),
        text: raw.slice(1).replace(/\r$/, ""),
      });
      current = undefined;
      continue;
    }
    const head = /^([0-9a-f]{40,64}) \d+ (\d+)(?: \d+)?$/.exec(raw);
    if (head) {
      current = { commit: head[1]!, line: Number(head[2]) };
      if (!commits.has(head[1]!)) commits.set(head[1]!, { author: "", time: 0, tz: "+0000" });
      continue;
    }
    const info = current === undefined ? undefined : commits.get(current.commit);
    if (info === undefined) continue;
    if (raw.startsWith("author ")) info.author = sanitize(raw.slice(7));
    else if (raw.startsWith("author-time ")) info.time = Number(raw.slice(12));
    else if (raw.startsWith("author-tz ")) info.tz = raw.slice(10);
  }
  return lines;
}

/** An epoch time as `YYYY-MM-DD` in a `+hhmm` zone. */
function authorDate(time: number, tz: string): string {
  const match = /^([+-])(\d\d)(\d\d)$/.exec(tz);
  const offset = match
    ? (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
    : 0;
  return new Date((time + offset * 60) * 1000).toISOString().slice(0, 10);
}
