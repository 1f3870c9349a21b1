/**
 * `git_log`: commits newest first, one line each (short hash, date,
 * author, subject), optionally of one path or from one revision, paged
 * with `offset`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { checkRev, runGit, sanitize } from "./_git.ts";
import { openRepo } from "./_repo.ts";
import { callText } from "./_render.ts";

/** Commits a call lists when it does not say. */
export const DEFAULT_LOG_COUNT = 20;

/** The most commits one call lists. */
export const MAX_LOG_COUNT = 200;

/** One commit of a log. */
export interface LogEntry {
  /** Its full hash. */
  readonly hash: string;
  /** Its short hash. */
  readonly short: string;
  /** Its author date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Its author's name. */
  readonly author: string;
  /** Its subject line. */
  readonly subject: string;
}

const FIELD = "\x1f";
const RECORD = "\x1e";

/** Commits, newest first. */
export const gitLog = defineTool({
  name: "git_log",
  description:
    "Git commits newest first, one line each (short hash, date, author, subject), optionally only those touching a path or reachable from rev. Page with offset.",
  input: z.object({
    path: z.string().min(1).optional().describe("Only commits touching this path"),
    limit: z.number().int().min(1).max(MAX_LOG_COUNT).default(DEFAULT_LOG_COUNT),
    offset: z.number().int().min(0).max(10_000_000).default(0),
    rev: z.string().optional().describe("Start from this revision or range (default HEAD)"),
  }),
  annotations: { title: "Git log", readOnlyHint: true, idempotentHint: true },
  async run({ path, limit, offset, rev }, ctx) {
    const start = rev === undefined ? undefined : checkRev("rev", rev);
    const target = await openRepo(ctx, "git_log", path);
    if (start === undefined && !target.hasHead) return "No commits yet";
    const result = await runGit(ctx, {
      args: logArgs(limit + 1, offset, start, target.spec),
      cwd: target.top,
      tool: "git_log",
      overrides: target.overrides,
    });
    const entries = parseLog(result.stdout);
    const shown = entries.slice(0, limit);
    const rows = shown.map((e) => `${e.short} ${e.date} ${e.author} | ${e.subject}`);
    if (rows.length === 0) {
      rows.push(offset > 0 ? `No commits after the first ${offset}` : "No commits");
    }
    const more = entries.length > limit;
    if (more || offset > 0) {
      const next = callText({
        name: "git_log",
        args: { path, limit, rev, offset: offset + limit },
      });
      const range = shown.length > 0
        ? `commits ${offset + 1}-${offset + shown.length}`
        : "no commits";
      rows.push(`[${range}${more ? `; ${next} for more` : "; no more"}]`);
    }
    return {
      content: [{ type: "text", text: rows.join("\n") }],
      structuredContent: { commits: shown, offset, more },
    };
  },
});

/** `git log` for one page of commits, one line each in the tool's format. */
function logArgs(count: number, skip: number, start: string | undefined, spec: string): string[] {
  return [
    "log",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    `--format=%H${FIELD}%h${FIELD}%ad${FIELD}%an${FIELD}%s${RECORD}`,
    "--date=short",
    `--max-count=${count}`,
    `--skip=${skip}`,
    "--end-of-options",
    ...(start === undefined ? [] : [start]),
    "--",
    spec,
  ];
}

/**
 * Parse log output written with the tool's format (fields split by US,
 * commits ended by RS).
 *
 * @param output Git's output.
 * @returns The commits, each field on one printable line.
 */
export function parseLog(output: string): LogEntry[] {
  return output.split(RECORD)
    .map((record) => record.replace(/^\n/, ""))
    .filter((record) => record.includes(FIELD))
    .map((record) => {
      const [hash = "", short = "", date = "", author = "", subject = ""] = record.split(FIELD);
      return { hash, short, date, author: sanitize(author), subject: sanitize(subject) };
    });
}
