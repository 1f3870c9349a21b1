/**
 * What the git tools share in their replies: a diff with each hunk located
 * as `path:start-end` (new-side lines, paths as the model names them), and
 * pages of output lines with a note that names the call for the rest.
 *
 * @module
 */

import { posix } from "node:path";
import { splitLines } from "../_text.ts";
import { type Page, readBudget, takePage } from "../files/read_file.ts";
import type { ToolContext } from "../tool.ts";
import { displayPath } from "./_repo.ts";

/** One hunk of a diff, located. */
export interface Hunk {
  /** The output line of its header, 1-based. */
  readonly line: number;
  /** The file, as the model names it. */
  readonly path: string;
  /** The first new-side line (the old side's for a deleted file). */
  readonly start: number;
  /** The last (`start - 1` for a hunk that only removes lines: they went after `start - 1`). */
  readonly end: number;
}

/** A diff whose hunk headers start with their location. */
export interface RenderedDiff {
  /** The lines, each with its line ending. */
  readonly lines: string[];
  /** The hunks, in order. */
  readonly hunks: Hunk[];
}

/** Where the parser is in a diff. */
interface DiffState {
  old: string;
  new: string;
  inHeader: boolean;
}

/**
 * Locate every hunk of git's diff output (a commit's header may come first;
 * its message is indented, so it is never taken for a diff line): each
 * `@@` header is prefixed with `path:start-end `.
 *
 * @param ctx The call's context (to name paths).
 * @param top The repository's top (diff paths are relative to it).
 * @param output Git's output.
 * @returns The lines and the hunks.
 */
export function renderDiff(ctx: ToolContext, top: string, output: string): RenderedDiff {
  const lines = splitLines(output);
  const hunks: Hunk[] = [];
  const state: DiffState = { old: "", new: "", inHeader: false };
  lines.forEach((line, i) => {
    if (line.startsWith("diff ")) {
      state.inHeader = true;
      const names = headerPaths(line);
      state.old = names.old;
      state.new = names.new;
    } else if (state.inHeader && /^(---|\+\+\+) /.test(line)) {
      const name = diffPath(line.slice(4).replace(/\r?\n$/, ""));
      if (line.startsWith("-")) state.old = name;
      else state.new = name;
    } else if (/^@@+ /.test(line)) {
      state.inHeader = false;
      const hunk = locate(ctx, top, state, line, i + 1);
      if (hunk === undefined) return;
      hunks.push(hunk);
      const range = hunk.end > hunk.start ? `${hunk.start}-${hunk.end}` : `${hunk.start}`;
      lines[i] = `${hunk.path}:${range} ${line}`;
    }
  });
  return { lines, hunks };
}

/** The hunk a header line describes, or `undefined` when it is not one. */
function locate(
  ctx: ToolContext,
  top: string,
  state: DiffState,
  line: string,
  number: number,
): Hunk | undefined {
  const match = /^(@@+) (.+?) \1/.exec(line);
  if (!match) return undefined;
  const ranges = match[2]!.split(" ");
  const deleted = state.new === "" || state.new === "/dev/null";
  const token = deleted
    ? ranges.find((r) => r.startsWith("-"))
    : ranges.findLast((r) => r.startsWith("+"));
  const range = /^[-+](\d+)(?:,(\d+))?$/.exec(token ?? "");
  if (!range) return undefined;
  const start = Number(range[1]);
  const count = range[2] === undefined ? 1 : Number(range[2]);
  const file = deleted ? state.old : state.new;
  const path = displayPath(ctx, posix.join(top, file));
  // A hunk that only removes lines says where they were: after line `start`.
  if (count === 0) return { line: number, path, start: start + 1, end: start };
  return { line: number, path, start, end: start + count - 1 };
}

/** The paths of a `diff --git a/X b/Y` (or `diff --cc X`) line, as best they parse. */
function headerPaths(line: string): { old: string; new: string } {
  const text = line.replace(/\r?\n$/, "");
  const combined = /^diff --(?:cc|combined) (.+)$/.exec(text);
  if (combined) return { old: combined[1]!, new: combined[1]! };
  const quoted = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(text);
  if (quoted) return { old: diffPath(quoted[1]!), new: diffPath(quoted[2]!) };
  // Unquoted names with spaces: `a/x y b/x y`, the same name twice.
  const half = text.slice("diff --git ".length);
  const name = half.slice(2, (half.length - 1) / 2);
  return { old: name, new: name };
}

/**
 * A path of a diff header (`a/x`, `b/x`, `"a/t\303\251"`, `/dev/null`),
 * unquoted and without its `a/`/`b/` prefix.
 *
 * @param raw The path as git wrote it.
 * @returns The repository-relative path, or `/dev/null`.
 */
export function diffPath(raw: string): string {
  const name = raw.replace(/\t$/, "");
  const plain = name.startsWith('"') ? unquoteC(name) : name;
  if (plain === "/dev/null") return plain;
  return /^[ab]\//.test(plain) ? plain.slice(2) : plain;
}

/**
 * Undo git's C-style quoting of a path (`"a\tb\303\251"`).
 *
 * @param quoted The quoted path, with its quotes.
 * @returns The path.
 */
export function unquoteC(quoted: string): string {
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== "\\") {
      bytes.push(...new TextEncoder().encode(char));
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/^[0-7]{3}$/.test(body.slice(i + 1, i + 4))) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** What a page of output lines asks for. */
export interface PageRequest {
  /** The first line, 1-based. */
  readonly offset: number;
  /** The most lines. */
  readonly limit: number;
  /** Number the lines (file content). */
  readonly lineNumbers?: boolean;
  /** What the output is, for an error (`the diff of "src"`). */
  readonly label: string;
}

/**
 * A page of lines, bounded by the reply's size as `read_file`'s are.
 *
 * @param ctx The call's context (the reply bound).
 * @param lines The lines, each with its line ending.
 * @param request Where to start, how many, what it is.
 * @returns The page.
 * @throws {ToolError} `invalid_argument` when the offset is past the end.
 */
export function pageLines(ctx: ToolContext, lines: readonly string[], request: PageRequest): Page {
  return takePage(lines, {
    path: request.label,
    offset: request.offset,
    limit: request.limit,
    maxBytes: readBudget(ctx),
    lineNumbers: request.lineNumbers ?? false,
  });
}

/**
 * The note that ends a page: `[lines a-b of N; <call>(…, offset=K) for more]`,
 * or `undefined` when the page is the whole output.
 *
 * @param page The page.
 * @param call The call that returned it (its name and arguments, without `offset`).
 * @returns The note.
 */
export function pageNote(page: Page, call: ToolCall): string | undefined {
  if (page.start === 1 && page.end === page.total && page.cut === undefined) return undefined;
  const more = page.end < page.total
    ? `; ${callText({ ...call, args: { ...call.args, offset: page.end + 1 } })} for more`
    : "; end of output";
  const cut = page.cut
    ? ` (line ${page.cut.line} is ${page.cut.length} characters, cut after ${page.cut.shown})`
    : page.full
    ? " (output limit reached)"
    : "";
  return `[lines ${page.start}-${page.end} of ${page.total}${cut}${more}]`;
}

/** A tool call, to show the model how to ask for more. */
export interface ToolCall {
  /** The tool. */
  readonly name: string;
  /** Its arguments; undefined ones are left out. */
  readonly args: Readonly<Record<string, string | number | boolean | undefined>>;
}

/**
 * A call as the model would write it: `git_log(path="src", offset=20)`.
 *
 * @param call The tool and its arguments.
 * @returns The text.
 */
export function callText(call: ToolCall): string {
  const args = Object.entries(call.args)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${call.name}(${args.join(", ")})`;
}
