/**
 * `fetch_url` (seed 001's): a web page as readable Markdown (or text), JSON
 * pretty-printed, a page of characters at a time with a note naming the
 * call that returns the rest, as `read_file` pages a file. The host's
 * network worker fetches it under the egress policy (`tools/network.ts`).
 *
 * @module
 */

import { z } from "zod";
import { defineTool, ToolError, type ToolResult } from "../tool.ts";
import { type FetchedPage, networkOf } from "../network.ts";

/** The most characters a page returns when the call does not say. */
export const DEFAULT_PAGE_CHARS = 20_000;
/** Room left in the reply bound for the note and `structuredContent`'s other fields. */
const RESERVE_CHARS = 8192;
/** A page ends at a line break when one lies in its last fifth. */
const LINE_CUT_SHARE = 0.2;

/** Fetch a URL as readable text. */
export const fetchUrl = defineTool({
  name: "fetch_url",
  description:
    "Fetch an http(s) page as Markdown (links, code blocks kept) or text; JSON pretty-printed. Paged: a note gives the next offset.",
  input: z.object({
    url: z.string().min(1).max(8192),
    limit: z.number().int().min(100).optional().describe(
      `Characters (default ${DEFAULT_PAGE_CHARS})`,
    ),
    offset: z.number().int().min(0).optional(),
    format: z.enum(["markdown", "text"]).optional(),
  }),
  output: z.object({
    url: z.string(),
    final_url: z.string(),
    status: z.number(),
    content_type: z.string(),
    title: z.string().nullable(),
    format: z.enum(["markdown", "text", "json"]),
    offset: z.number(),
    end: z.number(),
    total_chars: z.number(),
    truncated: z.boolean(),
    next_offset: z.number().optional(),
    bytes: z.number(),
    redirects: z.array(z.string()),
    requests: z.array(z.object({
      url: z.string(),
      address: z.string().nullable(),
      status: z.number().nullable(),
      bytes: z.number(),
      error: z.string().optional(),
    })),
  }),
  annotations: { title: "Fetch URL", readOnlyHint: true, openWorldHint: true },
  async run({ url, limit, offset = 0, format = "markdown" }, ctx) {
    let reports = 0;
    const page = await networkOf(ctx).fetchPage({
      url,
      format,
      signal: ctx.signal,
      onProgress: (_bytes, message) => ctx.progress(++reports, undefined, message),
    });
    const room = Math.max(1000, ctx.policy.limits.maxOutputChars - RESERVE_CHARS);
    const size = Math.min(limit ?? DEFAULT_PAGE_CHARS, room);
    return paged(page, { url, offset, limit: size, format, asked: limit });
  },
});

/** The call's paging: where, how much, and how to repeat it. */
interface Paging {
  url: string;
  offset: number;
  limit: number;
  format: string;
  asked: number | undefined;
}

/** One page of the document, with the note that names the next call. */
function paged(page: FetchedPage, paging: Paging): ToolResult {
  const total = page.text.length;
  if (paging.offset > 0 && paging.offset >= total) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read from character ${paging.offset}: the page has ${total} characters`,
    );
  }
  const end = pageEnd(page.text, paging.offset, paging.limit);
  const text = page.text.slice(paging.offset, end);
  const next = end < total ? end : undefined;
  const data = {
    url: page.url,
    final_url: page.final_url,
    status: page.status,
    content_type: page.content_type,
    title: page.title,
    format: page.format,
    offset: paging.offset,
    end,
    total_chars: total,
    truncated: next !== undefined,
    ...(next !== undefined ? { next_offset: next } : {}),
    bytes: page.bytes,
    redirects: [...page.redirects],
    requests: page.requests.map((request) => ({ ...request })),
  };
  return {
    content: [{ type: "text", text }, { type: "text", text: note(page, paging, end) }],
    structuredContent: data,
  };
}

/** Where a page ends: at the limit, or at the last line break in its last fifth. */
function pageEnd(text: string, offset: number, limit: number): number {
  const end = Math.min(text.length, offset + limit);
  if (end === text.length) return end;
  const lineBreak = text.lastIndexOf("\n", end - 1);
  const cut = lineBreak + 1;
  if (lineBreak >= 0 && cut > offset && end - cut <= limit * LINE_CUT_SHARE) return cut;
  // No line break near: never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** `[title — final URL (status, type, bytes); characters a-b of n; the next call]`. */
function note(page: FetchedPage, paging: Paging, end: number): string {
  const total = page.text.length;
  const what = [
    page.title ? `${JSON.stringify(page.title)} ` : "",
    `${page.final_url} (${page.status}, ${page.content_type}, ${
      page.bytes.toLocaleString("en")
    } bytes`,
    page.redirects.length > 0
      ? `, after ${page.redirects.length} redirect${page.redirects.length === 1 ? "" : "s"}`
      : "",
    ")",
  ].join("");
  if (paging.offset === 0 && end === total) return `[${what}]`;
  const range = `characters ${paging.offset}-${end} of ${total}`;
  if (end === total) return `[${what}; ${range}; end of page]`;
  const more = [`url=${JSON.stringify(paging.url)}`, `offset=${end}`];
  if (paging.asked !== undefined) more.push(`limit=${paging.asked}`);
  if (paging.format !== "markdown") more.push(`format="${paging.format}"`);
  return `[${what}; ${range}; fetch_url(${more.join(", ")}) for more]`;
}
