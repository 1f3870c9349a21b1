/**
 * `read_file`: a text file a page of whole lines at a time, and the paging
 * that `read_files` and `get_file_slice` share: a page is the file's own
 * lines (same line endings), cut only between lines, bounded by a line count
 * and by the bytes its JSON takes in the reply, with a note that names the
 * call that returns the rest.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { decodeText, splitLines } from "../_text.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";

/** The most lines a read returns when the call does not say. */
export const DEFAULT_READ_LINES = 2000;

/**
 * Room a read leaves in the reply bound (`limits.maxOutputChars`) for its
 * note, `structuredContent`, the JSON-RPC envelope and the notices the host
 * adds (a `[FILES UPDATED]` notice is at most 4,000 characters).
 */
export const READ_RESERVE_BYTES = 8192;

/** Lines are numbered at least this wide (as `cat -n` does). */
const NUMBER_WIDTH = 6;

/** What a page asks for. */
export interface PageOptions {
  /** The file's path as shown, for the error. */
  path: string;
  /** The first line, 1-based. */
  offset: number;
  /** The most lines. */
  limit: number;
  /** The most bytes the page's text may take in the reply's JSON. */
  maxBytes: number;
  /** Prefix each line with its number and a tab. */
  lineNumbers: boolean;
}

/** A page of lines. */
export interface Page {
  /** The lines, joined as they are in the file (numbered when asked). */
  text: string;
  /** The first line, 1-based. */
  start: number;
  /** The last line returned (`start - 1` when none). */
  end: number;
  /** The file's line count. */
  total: number;
  /** The bytes the text takes in the reply's JSON. */
  bytes: number;
  /** The byte bound, not the line limit, ended the page before the end of the file. */
  full: boolean;
  /** A line longer than the whole bound, cut: its number, the characters shown, its length (without its ending). */
  cut?: { line: number; shown: number; length: number };
}

/** How a note names the call that returns more. */
export interface ReadCall {
  /** The path as the model may give it back. */
  path: string;
  /** The limit the model asked for, to repeat it. */
  limit?: number | undefined;
  /** Whether it asked for line numbers. */
  lineNumbers: boolean;
}

/** Read a text file a page of whole lines at a time. */
export const readFile = defineTool({
  name: "read_file",
  description:
    "Read a text file: whole lines, 2000 by default, with a note giving the offset of the rest; read_files reads several.",
  input: z.object({
    path: z.string().min(1).describe("Relative to the first root, or absolute"),
    offset: z.number().int().min(1).default(1).describe("First line, 1-based"),
    limit: z.number().int().min(1).optional().describe("Most lines"),
    line_numbers: z.boolean().default(false).describe("Prefix `N<tab>` (not part of the file)"),
  }),
  output: z.object({
    path: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    total_lines: z.number(),
    truncated: z.boolean().describe("The file goes on past end_line, or a line was cut"),
    next_offset: z.number().optional(),
  }),
  annotations: { title: "Read file", readOnlyHint: true, idempotentHint: true },
  async run({ path, offset, limit, line_numbers }, ctx) {
    const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxReadBytes);
    const lines = splitLines(decodeText(bytes, resolved.display).text);
    const page = takePage(lines, {
      path: resolved.display,
      offset,
      limit: limit ?? DEFAULT_READ_LINES,
      maxBytes: readBudget(ctx),
      lineNumbers: line_numbers,
    });
    const note = pageNote(page, { path: resolved.display, limit, lineNumbers: line_numbers });
    const result: ToolResult = {
      content: [{ type: "text", text: page.text }],
      structuredContent: { path: resolved.display, ...pageData(page) },
    };
    if (note !== undefined) result.content.push({ type: "text", text: note });
    return result;
  },
});

/**
 * The bytes a read's lines may take: the reply bound less room for the rest.
 *
 * @param ctx The tool context (its policy's limits).
 * @returns The budget in bytes of JSON.
 */
export function readBudget(ctx: ToolContext): number {
  return Math.max(1024, ctx.policy.limits.maxOutputChars - READ_RESERVE_BYTES);
}

/**
 * Take a page of whole lines: from `offset`, at most `limit` lines and
 * `maxBytes` bytes of JSON. Only a first line longer than the whole bound is
 * cut (and said to be in `cut`).
 *
 * @param lines The file's lines, each with its line ending ({@linkcode splitLines}).
 * @param options Where to start, how much to take, whether to number the lines.
 * @returns The page.
 * @throws {ToolError} `invalid_argument` when `offset` is past the last line.
 */
export function takePage(lines: readonly string[], options: PageOptions): Page {
  const total = lines.length;
  if (options.offset > Math.max(total, 1)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read from line ${options.offset}: "${options.path}" has ${total} line${
        total === 1 ? "" : "s"
      }`,
    );
  }
  const width = Math.max(NUMBER_WIDTH, String(total).length);
  const parts: string[] = [];
  const page: Page = { text: "", start: options.offset, end: 0, total, bytes: 0, full: false };
  let index = options.offset - 1;
  while (index < total && parts.length < options.limit) {
    const prefix = options.lineNumbers ? `${String(index + 1).padStart(width)}\t` : "";
    const line = `${prefix}${lines[index]}`;
    const fit = jsonFit(line, options.maxBytes - page.bytes);
    if (fit.end < line.length) {
      page.full = true;
      if (parts.length > 0) break;
      parts.push(line.slice(0, fit.end));
      page.bytes += fit.bytes;
      const shown = Math.max(0, fit.end - prefix.length);
      const length = lines[index]!.replace(/(?:\r\n|\r|\n)$/, "").length;
      page.cut = { line: index + 1, shown, length };
      index++;
      break;
    }
    parts.push(line);
    page.bytes += fit.bytes;
    index++;
  }
  page.end = index;
  page.text = parts.join("");
  return page;
}

/**
 * Number lines the way {@linkcode takePage} does (`cat -n`: the number
 * right-aligned, at least six wide, then a tab).
 *
 * @param lines The lines, each with its line ending.
 * @param first The number of the first.
 * @param total The file's line count (it sets the width).
 * @returns The numbered lines, joined.
 */
export function numberLines(lines: readonly string[], first: number, total: number): string {
  const width = Math.max(NUMBER_WIDTH, String(total).length);
  return lines.map((line, i) => `${String(first + i).padStart(width)}\t${line}`).join("");
}

/**
 * The note that ends a page: the range returned, the total and the call that
 * returns the rest; `undefined` for a whole file returned whole.
 *
 * @param page The page.
 * @param call How the model asked (to repeat it).
 * @returns The note, in brackets.
 */
export function pageNote(page: Page, call: ReadCall): string | undefined {
  if (page.total === 0) return "[empty file: 0 lines]";
  const whole = page.start === 1 && page.end === page.total && page.cut === undefined;
  if (whole) return undefined;
  const next = page.end < page.total ? nextCall(page.end + 1, call) : undefined;
  if (page.cut) {
    const { line, shown, length } = page.cut;
    return `[line ${line} of ${page.total} is ${length} characters, cut after ${shown} (over the output limit); grep shows parts of a line${
      next ? `; ${next} goes on after it` : ""
    }]`;
  }
  const range = `lines ${page.start}-${page.end} of ${page.total}`;
  if (!next) return `[${range}; end of file]`;
  return `[${range}${page.full ? " (output limit reached)" : ""}; ${next} for more]`;
}

/**
 * The page as `structuredContent` fields.
 *
 * @param page The page.
 * @returns `start_line`, `end_line`, `total_lines`, `truncated` and, when there is more, `next_offset`.
 */
export function pageData(page: Page): Record<string, number | boolean> {
  const data: Record<string, number | boolean> = {
    start_line: page.start,
    end_line: page.end,
    total_lines: page.total,
    truncated: page.end < page.total || page.cut !== undefined,
  };
  if (page.end < page.total) data.next_offset = page.end + 1;
  return data;
}

/** `read_file(path="…", offset=N[, limit=L][, line_numbers=true])`. */
function nextCall(offset: number, call: ReadCall): string {
  const limit = call.limit === undefined ? "" : `, limit=${call.limit}`;
  const numbers = call.lineNumbers ? ", line_numbers=true" : "";
  return `read_file(path=${JSON.stringify(call.path)}, offset=${offset}${limit}${numbers})`;
}

/**
 * The longest prefix of `text` whose JSON string form (without its quotes)
 * takes at most `budget` UTF-8 bytes, never splitting a surrogate pair.
 */
function jsonFit(text: string, budget: number): { end: number; bytes: number } {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let size: number;
    let width = 1;
    if (code < 0x20) size = ESCAPED_SHORT.has(code) ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) size = 2;
    else if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      size = 4;
      width = 2;
    } else if (code >= 0xd800 && code <= 0xdfff) size = 6; // a lone surrogate is escaped
    else size = 3;
    if (bytes + size > budget) break;
    bytes += size;
    i += width;
  }
  return { end: i, bytes };
}

/** Control characters JSON writes as two characters (`\b`, `\t`, `\n`, `\f`, `\r`). */
const ESCAPED_SHORT: ReadonlySet<number> = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
