/**
 * `grep`: search file contents with a regular expression (or a literal),
 * results grouped by file with optional context lines, bounded and paged.
 * Lines are matched by a linear-time engine (`_linear_regex.ts`), so no
 * pattern can make a search backtrack for ever. A file that cannot be
 * searched is left out and counted, never failing the call.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { formatBytes } from "../../security/safe_fs.ts";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import { decodeText, describeBinary, isBinary } from "../_text.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { type LinearRegex, linearRegex, PatternLimit } from "./_linear_regex.ts";
import { UnsupportedPattern } from "./_js_pattern.ts";
import { toRustRegex } from "./_rust_regex.ts";
import { candidates, readBatch, type Used } from "./_grep_files.ts";
import { Pacer } from "../_walk.ts";

/** Longest line shown, in characters; longer lines are cut around the match. */
const MAX_LINE_CHARS = 300;
/** One file with matches. */
interface FileHits {
  display: string;
  lines: string[];
  hits: number[];
}

/** A compiled search. */
interface Search {
  /** Tests one line. */
  line: LinearRegex;
  /** Tests a whole file (multiline): false means no line can match. Undefined: test the lines. */
  file: LinearRegex | undefined;
  /** The pattern for ripgrep, or undefined when ripgrep cannot take it. */
  rust: string | undefined;
}

/** Search file contents. */
export const grep = defineTool({
  name: "grep",
  description:
    "Search file contents (a tree or one file) for a per-line regex (no lookaround or backreferences) or, with literal, plain text: paged `path:line: text`. Skips .git, node_modules, .gitignore'd files.",
  input: z.object({
    path: z.string().min(1).default("."),
    pattern: z.string().min(1),
    glob: z.string().min(1).optional().describe("Only files matching it (`*.py`)"),
    literal: z.boolean().default(false),
    ignore_case: z.boolean().default(false),
    context: z.number().int().min(0).max(20).default(0).describe("Lines around each match"),
    limit: z.number().int().min(1).max(2000).default(100),
    offset: z.number().int().min(0).default(0),
    include_ignored: z.boolean().default(false),
    include_git_and_node_modules: z.boolean().default(false),
  }),
  output: z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
    truncated: z.boolean().describe("True when more matches exist than were returned"),
    next_offset: z.number().optional().describe("The offset that returns the next page"),
    engine: z.enum(["ripgrep", "walker"]).describe(
      "What chose the files to read: ripgrep in the confined worker, or the JS walker",
    ),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Search file contents", readOnlyHint: true, idempotentHint: true },
  async run(input, ctx) {
    const search = compile(input.pattern, input.literal, input.ignore_case);
    const start = await ctx.fs.resolve(input.path, "any");
    if (!start.info?.isDirectory) checkFile(ctx, start);
    const want = input.offset + input.limit + 1;
    const found: FileHits[] = [];
    let count = 0;
    const pacer = new Pacer(ctx, "Searching");
    const used: Used = { engine: "walker", skipped: new Skipped() };
    for await (const batch of candidates(ctx, start, { input, rust: search.rust, used })) {
      const contents = readBatch(ctx, batch, used.skipped);
      for (let i = 0; i < contents.length && count < want; i++) {
        const hits = searchFile(contents[i]!, batch.displays[i]!, search, want - count);
        await pacer.tick();
        if (hits === undefined) continue;
        const display = batch.displays[i]!;
        if (hits === "binary") {
          used.skipped.add(display, `binary file (${describeBinary(contents[i] as Uint8Array)})`);
          continue;
        }
        found.push({ display, ...hits });
        count += hits.hits.length;
      }
      if (count >= want) break;
    }
    return render({ ...input, re: search.line }, start, found, used);
  },
});

/** An explicitly named file that grep cannot search is an error, not "no matches". */
function checkFile(ctx: ToolContext, file: ResolvedPath): void {
  const limit = ctx.policy.limits.maxSearchFileBytes;
  if ((file.info?.size ?? 0) > limit) {
    throw new ToolError(
      "too_large",
      `Cannot search "${file.display}": it is ${formatBytes(file.info!.size)}, the limit is ${
        formatBytes(limit)
      }; use get_file_slice for a range of lines`,
    );
  }
  const bytes = ctx.fs.readResolved(file, limit);
  if (isBinary(bytes)) {
    throw new ToolError("binary_file", `Cannot search "${file.display}": it is a binary file`);
  }
}

function compile(pattern: string, literal: boolean, ignoreCase: boolean): Search {
  if (/[\n\r]/.test(pattern)) {
    throw new ToolError(
      "invalid_argument",
      "Cannot search for a line break: grep matches within one line; search for one line's text",
    );
  }
  const source = literal ? pattern.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&") : pattern;
  const invalid = (why: string) =>
    new ToolError("invalid_argument", `Cannot use pattern ${JSON.stringify(pattern)}: ${why}`);
  try {
    // The syntax is JavaScript's: checked by RegExp, which never runs it.
    new RegExp(source, ignoreCase ? "iu" : "u");
  } catch (error) {
    throw invalid(
      `${
        error instanceof Error ? error.message : String(error)
      } (escape literal characters such as ( [ { } ] with \\, or pass literal: true)`,
    );
  }
  try {
    const line = linearRegex(source, { ignoreCase });
    // A modifier group that sets or clears `m` would change what ^ and $ mean in a whole file.
    const file = /\(\?[ims-]*m[ims-]*:/.test(source)
      ? undefined
      : linearRegex(source, { ignoreCase, multiline: true });
    const rust = toRustRegex(source);
    // Non-ASCII patterns meet non-UTF-8 files differently in Rust; the walker decides those.
    return { line, file, rust: /[\u0080-\uffff]/.test(pattern) ? undefined : rust };
  } catch (error) {
    if (error instanceof UnsupportedPattern) {
      throw invalid(
        `${error.message} are not supported (grep runs in linear time; the dialect is what JavaScript and Rust regular expressions share)`,
      );
    }
    if (error instanceof PatternLimit) throw invalid(error.message);
    throw error;
  }
}

/**
 * The matching lines of a file (at most `limit`), undefined for none (or a
 * file that could not be read), or "binary" for a binary file with a match:
 * its lines are not shown, but it is said.
 */
function searchFile(
  bytes: Uint8Array | undefined,
  display: string,
  search: Search,
  limit: number,
): { lines: string[]; hits: number[] } | "binary" | undefined {
  if (bytes === undefined) return undefined;
  if (isBinary(bytes)) return binaryMatches(bytes, search) ? "binary" : undefined;
  // Decoded as every tool decodes (a Python file in its PEP 263 coding), so lines read the same.
  const text = decodeText(bytes, display).text;
  if (search.file && !search.file.test(text)) return undefined;
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const hits: number[] = [];
  for (let i = 0; i < lines.length && hits.length < limit; i++) {
    if (search.line.test(lines[i]!)) hits.push(i);
  }
  return hits.length > 0 ? { lines, hits } : undefined;
}

/** Whether a line of a binary file matches: its bytes read as UTF-8 (as `rg --text` does), never decoded. */
function binaryMatches(bytes: Uint8Array, search: Search): boolean {
  if (search.file && !search.file.test(bytes)) return false;
  for (let from = 0; from < bytes.length;) {
    const end = bytes.indexOf(0x0a, from);
    const to = end < 0 ? bytes.length : end;
    if (search.line.test(bytes.subarray(from, to))) return true;
    from = to + 1;
  }
  return false;
}

/** What rendering needs of the input, and the line pattern (to cut long lines around a match). */
interface RenderInput {
  pattern: string;
  offset: number;
  limit: number;
  context: number;
  re: LinearRegex;
}

/** The page of matches asked for: each file's shown hits, how many hits there were, and whether more follow. */
interface Page {
  shown: Array<{ file: FileHits; hits: number[] }>;
  total: number;
  truncated: boolean;
}

function render(
  input: RenderInput,
  start: ResolvedPath,
  found: FileHits[],
  used: Used,
): ToolResult {
  const { shown, total, truncated } = pageOf(found, input);
  const end = input.offset + input.limit;
  const matches = shown.flatMap(({ file, hits }) =>
    hits.map((hit) => ({
      path: file.display,
      line: hit + 1,
      text: cut(file.lines[hit]!, input.re),
    }))
  );
  const data: Record<string, unknown> = {
    matches,
    truncated,
    engine: used.engine,
    skipped: used.skipped.summary(),
  };
  if (truncated) data.next_offset = end;
  let text: string;
  if (matches.length === 0) {
    text = input.offset > 0 && total > 0
      ? `No more matches for ${
        JSON.stringify(input.pattern)
      }: offset ${input.offset} is past the last of ${total}`
      : `No matches for ${JSON.stringify(input.pattern)} in ${start.display}`;
  } else {
    text = shown.map(({ file, hits }) => renderFile(file, hits, input)).join("\n\n");
    if (truncated) {
      text +=
        `\n\n[more matches: call again with offset ${end}, or narrow the pattern, path or glob]`;
    }
  }
  return {
    content: [{ type: "text", text: used.skipped.appendTo(text) }],
    structuredContent: data,
  };
}

/** The hits from `offset`, at most `limit`, by file (files with none shown left out). */
function pageOf(found: FileHits[], input: RenderInput): Page {
  const page: Page = { shown: [], total: 0, truncated: false };
  const end = input.offset + input.limit;
  for (const file of found) {
    const hits: number[] = [];
    for (const hit of file.hits) {
      if (page.total >= end) page.truncated = true;
      else if (page.total >= input.offset) hits.push(hit);
      page.total++;
    }
    if (hits.length > 0) page.shown.push({ file, hits });
  }
  return page;
}

function renderFile(
  file: FileHits,
  shown: number[],
  input: { context: number; re: LinearRegex },
): string {
  const out: string[] = [];
  const hitSet = new Set(shown);
  let last = -2;
  for (const hit of shown) {
    const from = Math.max(0, hit - input.context, last + 1);
    const to = Math.min(file.lines.length - 1, hit + input.context);
    if (input.context > 0 && last >= 0 && from > last + 1) out.push("--");
    for (let i = from; i <= to; i++) {
      const mark = hitSet.has(i) ? ":" : "-";
      out.push(`${file.display}${mark}${i + 1}${mark} ${cut(file.lines[i]!, input.re)}`);
    }
    last = Math.max(last, to);
  }
  return out.join("\n");
}

/** A line for display: without its `\r`, at most MAX_LINE_CHARS, cut around the match. */
function cut(line: string, re: LinearRegex): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.length <= MAX_LINE_CHARS) return text;
  const at = re.index(text) ?? 0;
  const from = Math.max(0, Math.min(at - 100, text.length - MAX_LINE_CHARS));
  const to = from + MAX_LINE_CHARS;
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${
    to < text.length ? "…" : ""
  } [line cut: ${text.length} characters]`;
}
