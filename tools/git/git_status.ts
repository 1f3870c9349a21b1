/**
 * `git_status`: the branch, how far it is from its upstream, and the
 * staged, unstaged, unmerged and untracked entries, read from
 * `git status --porcelain=v2 -z` and rendered compactly.
 *
 * @module
 */

import { posix } from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { runGit, sanitize } from "./_git.ts";
import { hiddenNote, isHidden } from "./_hidden.ts";
import { displayPath, openRepo } from "./_repo.ts";

/** The most entries a status lists (the counts are always whole). */
export const MAX_STATUS_ENTRIES = 400;

/** One changed path. */
export interface StatusEntry {
  /** What changed (`modified`, `added`, `renamed`, `both modified`, …). */
  readonly status: string;
  /** The path, as the model names it. */
  readonly path: string;
  /** Where a rename or copy came from. */
  readonly from?: string;
}

/** A repository's status. */
export interface Status {
  /** The branch, or `(detached)`. */
  branch: string;
  /** The commit HEAD names (`(initial)` before the first). */
  oid: string;
  /** The upstream branch, when one is set. */
  upstream?: string;
  /** Commits ahead of the upstream. */
  ahead?: number;
  /** Commits behind it. */
  behind?: number;
  /** Stash entries. */
  stashes: number;
  /** Changes in the index. */
  staged: StatusEntry[];
  /** Changes in the working tree, not staged. */
  unstaged: StatusEntry[];
  /** Paths with merge conflicts. */
  unmerged: StatusEntry[];
  /** Paths git does not track. */
  untracked: StatusEntry[];
}

const CODES: Readonly<Record<string, string>> = {
  M: "modified",
  T: "type changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
};

const UNMERGED: Readonly<Record<string, string>> = {
  DD: "both deleted",
  AU: "added by us",
  UD: "deleted by them",
  UA: "added by them",
  DU: "deleted by us",
  AA: "both added",
  UU: "both modified",
};

/** The working tree's status. */
export const gitStatus = defineTool({
  name: "git_status",
  description:
    "Git status: branch, ahead/behind its upstream, and staged, unstaged, unmerged and untracked paths (optionally under one path).",
  input: z.object({
    path: z.string().min(1).optional().describe("Only entries under this path"),
  }),
  annotations: { title: "Git status", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const target = await openRepo(ctx, "git_status", path);
    const result = await runGit(ctx, {
      args: [
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--show-stash",
        "--untracked-files=normal",
        "--ignore-submodules=dirty",
        "--find-renames",
        "--",
        target.spec,
      ],
      cwd: target.top,
      tool: "git_status",
      overrides: target.overrides,
    });
    const name = (p: string) =>
      `${displayPath(ctx, posix.join(target.top, p))}${p.endsWith("/") ? "/" : ""}`;
    const { status, hidden } = withoutHidden(parseStatus(result.stdout, name), ctx);
    const shown = statusResult(status, path === undefined ? undefined : target.display);
    if (hidden.length === 0) return shown;
    shown.content.push({ type: "text", text: hiddenNote(hidden) });
    return { ...shown, structuredContent: { ...shown.structuredContent, hidden } };
  },
});

/**
 * The status without the entries the host hides: in the sandbox git sees an
 * empty stand-in for each, so its state there is not the file's.
 */
function withoutHidden(status: Status, ctx: ToolContext): { status: Status; hidden: string[] } {
  const hidden = new Set<string>();
  const keep = (entries: StatusEntry[]) =>
    entries.filter((entry) => {
      if (!isHidden(ctx, entry.path)) return true;
      hidden.add(entry.path);
      return false;
    });
  const kept = {
    ...status,
    staged: keep(status.staged),
    unstaged: keep(status.unstaged),
    unmerged: keep(status.unmerged),
    untracked: keep(status.untracked),
  };
  return { status: kept, hidden: [...hidden] };
}

/**
 * Parse `git status --porcelain=v2 -z --branch --show-stash` output.
 *
 * @param output Git's output.
 * @param name How to name a repository-relative path to the model.
 * @returns The status.
 */
export function parseStatus(output: string, name: (path: string) => string): Status {
  const status: Status = {
    branch: "",
    oid: "",
    stashes: 0,
    staged: [],
    unstaged: [],
    unmerged: [],
    untracked: [],
  };
  const tokens = output.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startsWith("# ")) header(status, token.slice(2));
    else if (token.startsWith("1 ")) changed(status, fields(token, 8), name);
    else if (token.startsWith("2 ")) {
      changed(status, fields(token, 9), name, name(tokens[++i] ?? ""));
    } else if (token.startsWith("u ")) {
      const [, xy, , , , , , , , , path] = fields(token, 10);
      status.unmerged.push({ status: UNMERGED[xy!] ?? xy!, path: name(path!) });
    } else if (token.startsWith("? ")) {
      status.untracked.push({ status: "untracked", path: name(token.slice(2)) });
    }
  }
  return status;
}

/** A token's first `count` space-separated fields, then the rest (a path may hold spaces). */
function fields(token: string, count: number): string[] {
  const parts = token.split(" ");
  return [...parts.slice(0, count), parts.slice(count).join(" ")];
}

/** A `# branch.…` or `# stash` header. */
function header(status: Status, text: string): void {
  const [key, ...rest] = text.split(" ");
  const value = rest.join(" ");
  if (key === "branch.oid") status.oid = value;
  else if (key === "branch.head") status.branch = value;
  else if (key === "branch.upstream") status.upstream = value;
  else if (key === "stash") status.stashes = Number(value) || 0;
  else if (key === "branch.ab") {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match) [status.ahead, status.behind] = [Number(match[1]), Number(match[2])];
  }
}

/** An ordinary (`1`) or renamed/copied (`2`) entry: staged for X, unstaged for Y. */
function changed(
  status: Status,
  parts: string[],
  name: (path: string) => string,
  from?: string,
): void {
  const [, xy = "..", sub = "N...", , , , , , ...rest] = parts;
  const path = name(rest[rest.length - 1]!);
  const submodule = sub.startsWith("S") ? " (submodule)" : "";
  const [x, y] = [xy[0]!, xy[1]!];
  if (x !== ".") {
    const entry: StatusEntry = { status: `${CODES[x] ?? x}${submodule}`, path };
    status.staged.push(from !== undefined && "RC".includes(x) ? { ...entry, from } : entry);
  }
  if (y !== ".") status.unstaged.push({ status: `${CODES[y] ?? y}${submodule}`, path });
}

/** The status as text and data, at most {@linkcode MAX_STATUS_ENTRIES} entries listed. */
function statusResult(status: Status, under: string | undefined): ToolResult {
  const sections = [
    ["Staged", status.staged],
    ["Unstaged", status.unstaged],
    ["Unmerged", status.unmerged],
    ["Untracked", status.untracked],
  ] as const;
  const lines = [branchLine(status), ...sectionLines(sections)];
  const total = sections.reduce((sum, [, entries]) => sum + entries.length, 0);
  if (total === 0) {
    const where = under === undefined ? "" : ` under "${under}"`;
    lines.push(`Nothing to commit${where}, working tree clean`);
  }
  if (total > MAX_STATUS_ENTRIES) {
    lines.push(
      `[${MAX_STATUS_ENTRIES} of ${total} entries listed; git_status(path=…) lists those under one path]`,
    );
  }
  const cap = (entries: StatusEntry[]) => entries.slice(0, MAX_STATUS_ENTRIES);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      ...status,
      staged: cap(status.staged),
      unstaged: cap(status.unstaged),
      unmerged: cap(status.unmerged),
      untracked: cap(status.untracked),
      truncated: total > MAX_STATUS_ENTRIES,
    },
  };
}

/** Each non-empty section's title and entries, {@linkcode MAX_STATUS_ENTRIES} in all. */
function sectionLines(sections: ReadonlyArray<readonly [string, StatusEntry[]]>): string[] {
  const lines: string[] = [];
  let room = MAX_STATUS_ENTRIES;
  for (const [title, entries] of sections) {
    if (entries.length === 0) continue;
    lines.push(`${title} (${entries.length}):`);
    const shown = entries.slice(0, Math.max(0, room));
    room -= shown.length;
    for (const entry of shown) lines.push(`  ${entryLine(entry)}`);
    if (shown.length < entries.length) lines.push(`  … ${entries.length - shown.length} more`);
  }
  return lines;
}

/** `On branch main (origin/main: ahead 1, behind 2)`, or detached, or no commit yet. */
function branchLine(status: Status): string {
  const branch = sanitize(status.branch);
  const head = status.branch === "(detached)"
    ? `HEAD detached at ${status.oid.slice(0, 12)}`
    : status.oid === "(initial)"
    ? `On branch ${branch}, no commits yet`
    : `On branch ${branch}`;
  const upstream = status.upstream === undefined
    ? ""
    : ` (${sanitize(status.upstream)}: ${
      status.ahead === undefined ? "gone" : `ahead ${status.ahead}, behind ${status.behind}`
    })`;
  const stash = status.stashes > 0
    ? `; ${status.stashes} stash${status.stashes === 1 ? "" : "es"}`
    : "";
  return `${head}${upstream}${stash}`;
}

/** `modified: src/a.ts`, `renamed: old -> new`. */
function entryLine(entry: StatusEntry): string {
  const path = sanitize(entry.path);
  const from = entry.from === undefined ? "" : `${sanitize(entry.from)} -> `;
  return entry.status === "untracked" ? path : `${entry.status}: ${from}${path}`;
}
