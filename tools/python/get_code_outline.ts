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
import { OUTLINE_ENTRY, outlineLines, outlineOf, type OutlineSymbol } from "../_symbols.ts";
import { defineTool, structured, type ToolContext } from "../tool.ts";
import { pythonSources, type ScanRange } from "./_scan.ts";
import { collectSymbols } from "./_symbols.ts";

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
    "Outline a Python file, or every .py/.pyi file under a directory (paged): classes, functions and methods, nested, with their lines.",
  input: z.object({
    path: z.string().min(1),
    limit: z.number().int().min(1).max(5000).default(100).describe("Files"),
    offset: z.number().int().min(0).default(0),
  }),
  output: z.object({
    symbols: z.array(OUTLINE_ENTRY),
    files: z.array(z.object({ path: z.string(), symbols: z.array(OUTLINE_ENTRY) })).optional(),
    next_offset: z.number().optional(),
    skipped: SKIPPED_OUTPUT.optional(),
  }),
  annotations: { title: "Python outline", readOnlyHint: true, idempotentHint: true },
  async run({ path, limit, offset }, ctx) {
    const resolved = await ctx.fs.resolve(path, "any");
    if (resolved.info?.isDirectory) return await outlineDirectory(ctx, path, limit, offset);
    const file = ctx.fs.readVersion(resolved, ctx.policy.limits.maxEditBytes);
    const cache = ctx.shared("python-outlines", () => new OutlineCache());
    const key = `${resolved.path}\0${file.info.mtime?.getTime() ?? 0}\0${file.fingerprint}`;
    let outline = cache.get(key);
    if (!outline) {
      const text = decodeText(file.bytes, resolved.display).text;
      // Parsed without the tree cache: the outline itself is what is kept.
      const symbols = await parseOutline(treeSitter(ctx), text, resolved.display);
      outline = { symbols, rendered: render(symbols) };
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
      symbols = await parseOutline(ts, source.text, source.display);
    } catch (error) {
      skipped.failed(source.display, error, ctx.logger);
      continue;
    }
    const part = render(symbols) || `${source.display}: no classes or functions`;
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

function render(list: readonly OutlineSymbol[]): string {
  return outlineLines(list, { label: (kind) => LABELS[kind]! }).join("\n");
}

/**
 * The outline of a Python text, parsed without the tree cache.
 *
 * @throws {ToolError} `unsupported` when blocks nest too deep.
 */
async function parseOutline(
  ts: TreeSitter,
  text: string,
  display: string,
): Promise<OutlineSymbol[]> {
  const tree = await ts.parseText(text, "python");
  try {
    return outlineOf(collectSymbols(tree.rootNode), display);
  } finally {
    tree.delete();
  }
}

/** About the length of `JSON.stringify(entries)` (names are not escaped), without building it. */
function jsonSize(entries: readonly OutlineSymbol[]): number {
  let size = 2;
  for (const entry of entries) {
    // {"kind":"method","name":"","path":"","start_line":1234,"end_line":1234,"children":[]},
    size += 80 + entry.kind.length + entry.name.length + entry.path.length +
      jsonSize(entry.children);
  }
  return size;
}
