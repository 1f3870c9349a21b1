/**
 * `read_files`: several text files in one call, each under its own header
 * and paged like `read_file`. The reply's bound is split fairly: a small
 * file gets all it needs, the large ones share the rest equally. A file that
 * cannot be read shows its error in its place; the others are still read.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { decodeText, splitLines } from "../_text.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import {
  DEFAULT_READ_LINES,
  type Page,
  pageData,
  pageNote,
  readBudget,
  takePage,
} from "./read_file.ts";

/** The most files one call reads. */
export const MAX_READ_FILES = 20;

/** Room kept per file for its header, its `structuredContent` entry and its block's JSON. */
const PER_FILE_RESERVE_BYTES = 768;

/** One file of the call: its lines, or why it could not be read. */
type Loaded =
  | { ok: true; path: string; lines: string[] }
  | { ok: false; path: string; error: string };

/** What the call asks of every file. */
interface Ask {
  limit: number | undefined;
  lineNumbers: boolean;
}

/** Read several text files. */
export const readFiles = defineTool({
  name: "read_files",
  description:
    "Read up to 20 text files in one call, each under a `==> path <==` header, paged like read_file.",
  input: z.object({
    paths: z.array(z.string().min(1)).min(1).max(MAX_READ_FILES),
    limit: z.number().int().min(1).optional().describe("Lines per file"),
    line_numbers: z.boolean().default(false),
  }),
  output: z.object({
    files: z.array(z.object({
      path: z.string(),
      start_line: z.number().optional(),
      end_line: z.number().optional(),
      total_lines: z.number().optional(),
      truncated: z.boolean().optional(),
      next_offset: z.number().optional(),
      error: z.string().optional(),
    })),
  }),
  annotations: { title: "Read files", readOnlyHint: true, idempotentHint: true },
  async run({ paths, limit, line_numbers }, ctx) {
    const loaded: Loaded[] = [];
    for (const path of paths) loaded.push(await load(ctx, path));
    const failed = loaded.filter((file) => !file.ok).length;
    const only = loaded[0]!;
    if (loaded.length === 1 && !only.ok) {
      // One file asked for and not read: its error is the call's, as read_file would give it.
      return { content: [{ type: "text", text: only.error }], isError: true };
    }
    const ask: Ask = { limit, lineNumbers: line_numbers };
    const pages = fairPages(loaded, ask, readBudget(ctx) - paths.length * PER_FILE_RESERVE_BYTES);
    const result: ToolResult = {
      content: loaded.map((file, i) => ({ type: "text", text: block(file, pages[i], ask) })),
      structuredContent: { files: loaded.map((file, i) => fileData(file, pages[i])) },
    };
    if (failed === loaded.length) result.isError = true;
    return result;
  },
});

/** Read and split one file; a `ToolError` becomes its `error`, a cancellation fails the call. */
async function load(ctx: ToolContext, path: string): Promise<Loaded> {
  try {
    const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxReadBytes);
    const { text } = decodeText(bytes, resolved.display);
    return { ok: true, path: resolved.display, lines: splitLines(text) };
  } catch (error) {
    ctx.signal.throwIfAborted();
    if (error instanceof ToolError) {
      return { ok: false, path, error: `${error.code}: ${error.message}` };
    }
    ctx.logger.error(`read_files failed unexpectedly on "${path}"`, error);
    const message =
      "internal_error: reading it failed unexpectedly; the details are in the host's log";
    return { ok: false, path, error: message };
  }
}

/**
 * One page per readable file within `budget` bytes in all: each file's
 * need is what its lines up to the limit take; needs are met smallest first,
 * each getting at most an equal share of what is left.
 */
function fairPages(loaded: readonly Loaded[], ask: Ask, budget: number): Array<Page | undefined> {
  const options = (maxBytes: number) => ({
    offset: 1,
    limit: ask.limit ?? DEFAULT_READ_LINES,
    maxBytes: Math.max(0, maxBytes),
    lineNumbers: ask.lineNumbers,
  });
  const whole = loaded.map((file) =>
    file.ok ? takePage(file.lines, { path: file.path, ...options(budget) }) : undefined
  );
  const order = whole.map((page, i) => ({ page, i })).filter((each) => each.page !== undefined)
    .sort((a, b) => a.page!.bytes - b.page!.bytes);
  const pages = [...whole];
  let left = Math.max(0, budget);
  order.forEach(({ page, i }, rank) => {
    const share = Math.floor(left / (order.length - rank));
    if (page!.bytes > share) {
      const file = loaded[i]!;
      if (file.ok) pages[i] = takePage(file.lines, { path: file.path, ...options(share) });
    }
    left -= pages[i]!.bytes;
  });
  return pages;
}

/** A file's block: `==> path (N lines) <==` or its page note in the header, then the lines or the error. */
function block(file: Loaded, page: Page | undefined, ask: Ask): string {
  if (!file.ok || !page) return `==> ${file.path} <==\n${file.ok ? "" : file.error}`;
  const note = pageNote(page, { path: file.path, limit: ask.limit, lineNumbers: ask.lineNumbers });
  const about = note ?? `[${page.total} line${page.total === 1 ? "" : "s"}]`;
  return `==> ${file.path} ${about} <==\n${page.text}`;
}

/** A file's entry in `structuredContent`: its page's fields, or its error. */
function fileData(file: Loaded, page: Page | undefined): Record<string, unknown> {
  if (!file.ok || !page) return { path: file.path, error: file.ok ? "not read" : file.error };
  return { path: file.path, ...pageData(page) };
}
