/**
 * `py_get_code_outline`: the classes and functions of a Python file (or of
 * every Python file under a directory), nested.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { decodeText } from "../_text.ts";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import { type TreeSitter, treeSitter } from "../_treesitter.ts";
import { outlineLines, outlineOf, type OutlineSymbol } from "../_symbols.ts";
import { defineTool, structured, type ToolContext } from "../tool.ts";
import { pythonSources, type ScanRange } from "./_scan.ts";
import { collectSymbols } from "./_symbols.ts";

const ENTRY: z.ZodType<OutlineSymbol> = z.lazy(() =>
  z.object({
    kind: z.string(),
    name: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    children: z.array(ENTRY),
  })
);

const LABELS: Record<string, string> = { class: "Class", function: "Func", method: "Method" };

/** Outlines kept per worker. */
const CACHED_OUTLINES = 64;

interface Outline {
  symbols: OutlineSymbol[];
  rendered: string;
}

/**
 * Outlines of unchanged files, by path and version (modification time and
 * content fingerprint): a hit costs no decoding and no parsing.
 */
class OutlineCache {
  #entries = new Map<string, Outline>();

  get(key: string): Outline | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit;
  }

  set(key: string, outline: Outline): void {
    this.#entries.delete(key);
    this.#entries.set(key, outline);
    for (const old of this.#entries.keys()) {
      if (this.#entries.size <= CACHED_OUTLINES) break;
      this.#entries.delete(old);
    }
  }
}

/** Outline a Python file or directory. */
export const pyGetCodeOutline = defineTool({
  name: "py_get_code_outline",
  description:
    "Outline a Python file: every class, function and method (not those nested inside function bodies; those under if/try/with are included), with line ranges, members indented under their class: `[Class] Name (Lines X-Y)`. A range starts at the first decorator. Use it first to find your way in a file, then py_get_definition or get_file_slice for the code. Given a directory, outlines every .py/.pyi file under it, a page of files at a time (files that cannot be read or parsed are skipped and counted). Cheap and cached; structuredContent has the same tree.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file (or a directory)"),
    max_files: z.number().int().min(1).max(5000).default(100).describe(
      "For a directory: the most files to outline",
    ),
    offset: z.number().int().min(0).default(0).describe(
      "For a directory: skip this many files (for paging)",
    ),
  }),
  output: z.object({
    symbols: z.array(ENTRY).describe("The file's outline (empty for a directory)"),
    files: z.array(z.object({ path: z.string(), symbols: z.array(ENTRY) })).optional()
      .describe("For a directory: each file's outline"),
    next_offset: z.number().optional().describe("For a directory: the offset of the next page"),
    skipped: SKIPPED_OUTPUT.optional().describe(
      "For a directory: the files that could not be read or parsed",
    ),
  }),
  annotations: { title: "Python outline", readOnlyHint: true, idempotentHint: true },
  async run({ path, max_files, offset }, ctx) {
    const resolved = await ctx.fs.resolve(path, "any");
    if (resolved.info?.isDirectory) return await outlineDirectory(ctx, path, max_files, offset);
    const file = ctx.fs.readVersion(resolved, ctx.policy.limits.maxEditBytes);
    const cache = ctx.shared("python-outlines", () => new OutlineCache());
    const key = `${resolved.path}\0${file.info.mtime?.getTime() ?? 0}\0${file.fingerprint}`;
    let outline = cache.get(key);
    if (!outline) {
      const text = decodeText(file.bytes, resolved.display).text;
      // Parsed without the tree cache: the outline itself is what is kept.
      const symbols = await parseOutline(treeSitter(ctx), text);
      outline = { symbols, rendered: render(symbols, 0) };
      cache.set(key, outline);
    }
    return structured(
      outline.rendered === ""
        ? `"${resolved.display}" defines no classes or functions`
        : outline.rendered,
      { symbols: outline.symbols },
    );
  },
});

/** A page of a directory's outlines. */
interface OutlinePage {
  /** Each file's outline. */
  files: Array<{ path: string; symbols: OutlineSymbol[] }>;
  /** Each file's outline as text. */
  parts: string[];
  /** True when the page ended at the reply's size limit. */
  full: boolean;
}

async function outlineDirectory(
  ctx: ToolContext,
  path: string,
  maxFiles: number,
  offset: number,
) {
  const range: ScanRange = { offset, limit: maxFiles };
  const skipped = new Skipped();
  const { files, parts, full } = await outlinePage(ctx, path, { range, skipped, maxFiles });
  const next = range.next ?? offset;
  const more = next < (range.total ?? 0);
  if (files.length === 0 && offset === 0 && skipped.count === 0) {
    throw new ToolError("not_found", `No Python files under "${path}"`);
  }
  if (files.length === 0 && offset === 0) {
    parts.push(`No Python file under "${path}" could be read`);
  }
  const data: Record<string, unknown> = { symbols: [], files, skipped: skipped.summary() };
  if (more) {
    data.next_offset = next;
    parts.push(
      `[more files${
        full ? " (this reply reached its size limit)" : ""
      }: call again with offset: ${next}]`,
    );
  }
  return structured(skipped.appendTo(parts.join("\n")), data);
}

/**
 * Outline the files of one page. The reply (text and structuredContent) stays
 * within the output limit: a page ends early when the next file would pass
 * it, and says where to go on.
 */
async function outlinePage(
  ctx: ToolContext,
  path: string,
  scan: { range: ScanRange; skipped: Skipped; maxFiles: number },
): Promise<OutlinePage> {
  const { range, skipped } = scan;
  const ts = treeSitter(ctx);
  const page: OutlinePage = { files: [], parts: [], full: false };
  const budget = ctx.policy.limits.maxOutputChars;
  let used = 0;
  for await (const source of pythonSources(ctx, path, skipped, range)) {
    let symbols: OutlineSymbol[];
    try {
      symbols = await parseOutline(ts, source.text);
    } catch (error) {
      skipped.failed(source.display, error, ctx.logger);
      continue;
    }
    const part = `== ${source.display} ==\n${render(symbols, 1) || "  (no classes or functions)"}`;
    const size = part.length + jsonSize(symbols) + source.display.length + 32;
    if (page.files.length > 0 && used + size > budget) {
      range.next = range.next! - 1; // this file starts the next page
      page.full = true;
      break;
    }
    used += size;
    page.files.push({ path: source.display, symbols });
    page.parts.push(part);
    if (page.files.length >= scan.maxFiles) break;
  }
  return page;
}

function render(list: readonly OutlineSymbol[], depth: number): string {
  return outlineLines(list, { depth, label: (kind) => LABELS[kind]! }).join("\n");
}

/**
 * The outline of a Python text, parsed without the tree cache.
 *
 * @throws {ToolError} `unsupported` when blocks nest too deep.
 */
async function parseOutline(ts: TreeSitter, text: string): Promise<OutlineSymbol[]> {
  const tree = await ts.parseText(text, "python");
  try {
    return outlineOf(collectSymbols(tree.rootNode));
  } finally {
    tree.delete();
  }
}

/** About the length of `JSON.stringify(entries)` (names are not escaped), without building it. */
function jsonSize(entries: readonly OutlineSymbol[]): number {
  let size = 2;
  for (const entry of entries) {
    // {"kind":"method","name":"","start_line":1234,"end_line":1234,"children":[]},
    size += 70 + entry.kind.length + entry.name.length + jsonSize(entry.children);
  }
  return size;
}
