/**
 * The definition tools of the tree-sitter languages (C/C++, TS/JS):
 * loading a file (decode, parse, cached), a definition's result, and
 * replacing a definition only when that adds no parse error. Finding a
 * symbol by name is in `_find_symbol.ts` (re-exported here).
 *
 * @module
 */

import type { Tree } from "web-tree-sitter";
import { z } from "zod";
import { ToolError } from "../security/errors.ts";
import type { ResolvedPath } from "../security/resolver.ts";
import { decodeText, type TextFile, withEol } from "./_text.ts";
import { type Grammar, treeSitter } from "./_treesitter.ts";
import type { ToolContext, ToolResult } from "./tool.ts";
import { type CodeSymbol, type IndexedSymbol, location } from "./_symbols.ts";
import { errorCount } from "./_diagnostics.ts";
import { ALLOW_SYNTAX_ERRORS, editResult, FORCE, lineCount, saveText } from "./_edit.ts";
import type { Named } from "./_find_symbol.ts";

export { findSymbol, type Named } from "./_find_symbol.ts";

/** A parsed source file. */
export interface LoadedSource {
  /** The checked path. */
  resolved: ResolvedPath;
  /** The decoded file (for writing back). */
  file: TextFile;
  /** The tree (owned by the cache: use it before the next await). */
  tree: Tree;
  /** True when C/C++ conditionals were blanked to parse it (see `_parse.ts`). */
  masked: boolean;
}

/**
 * Read and parse a source file.
 *
 * @param ctx The tool context.
 * @param path The model's path.
 * @param grammar The grammar.
 * @returns The parsed file.
 */
export async function loadSource(
  ctx: ToolContext,
  path: string,
  grammar: Grammar,
  parse: SourceParser = parsePlain,
): Promise<LoadedSource> {
  const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxEditBytes);
  const file = decodeText(bytes, resolved.display);
  return { resolved, file, ...await parse(ctx, resolved, file.text, grammar) };
}

/** How a family parses a file for the definition tools (C/C++ blank their conditionals first). */
export type SourceParser = (
  ctx: ToolContext,
  resolved: ResolvedPath,
  text: string,
  grammar: Grammar,
) => Promise<{ tree: Tree; masked: boolean }>;

/** Parse as the file is, with the shared tree cache. */
async function parsePlain(
  ctx: ToolContext,
  resolved: ResolvedPath,
  text: string,
  grammar: Grammar,
): Promise<{ tree: Tree; masked: boolean }> {
  const parsed = await treeSitter(ctx).parseFile(resolved, text, grammar);
  return { tree: parsed.tree, masked: false };
}

/**
 * The text of lines `start`..`end` (1-based, inclusive), whole lines.
 *
 * @param text The file's text.
 * @param start First line.
 * @param end Last line.
 * @returns Those lines, with their line endings.
 */
export function wholeLines(text: string, start: number, end: number): string {
  const offsets = lineOffsets(text);
  return text.slice(offsets[start - 1] ?? text.length, offsets[end] ?? text.length);
}

/**
 * Where each line starts.
 *
 * @param text The text.
 * @returns Offsets; one past the last line is the text's length.
 */
export function lineOffsets(text: string): number[] {
  const offsets = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) offsets.push(i + 1);
  if (offsets.at(-1) !== text.length) offsets.push(text.length);
  return offsets;
}

/** What a definition's result needs of a symbol. */
export type Defined = Named & Pick<IndexedSymbol, "endLine">;

/** The shape of a get-definition tool's result (the same in every language). */
export const DEFINITION_OUTPUT = z.object({
  path: z.string(),
  name: z.string(),
  kind: z.string(),
  start_line: z.number(),
  end_line: z.number(),
  source: z.string(),
});

/** An update-definition tool's input, after `path` and `name`. */
export const UPDATE_FIELDS = {
  content: z.string().describe("The new definition, whole lines"),
  allow_syntax_errors: ALLOW_SYNTAX_ERRORS,
  force: FORCE,
};

/**
 * A definition as every get-definition tool answers: a `path:start-end name`
 * header line, then the source; the same as `structuredContent`.
 *
 * @param path The file, as shown to the model.
 * @param symbol The symbol.
 * @param source Its whole lines.
 * @returns The result ({@linkcode DEFINITION_OUTPUT}).
 */
export function definitionAt(
  path: string,
  symbol: Pick<CodeSymbol, "qualified" | "kind" | "startLine" | "endLine">,
  source: string,
): ToolResult {
  const where = location(path, symbol.startLine, symbol.endLine);
  return {
    content: [{ type: "text", text: `${where} ${symbol.qualified}\n${source}` }],
    structuredContent: {
      path,
      name: symbol.qualified,
      kind: symbol.kind,
      start_line: symbol.startLine,
      end_line: symbol.endLine,
      source,
    },
  };
}

/**
 * The result of a get-definition tool: the symbol's whole lines.
 *
 * @param source The parsed file.
 * @param symbol The symbol found.
 * @returns Text with a header, and `{path, name, kind, start_line, end_line, source}`.
 */
export function definitionResult(source: LoadedSource, symbol: Defined): ToolResult {
  const text = wholeLines(source.file.text, symbol.startLine, symbol.endLine);
  return definitionAt(source.resolved.display, symbol, text);
}

/**
 * The file's text with a symbol's whole lines replaced by new content, in
 * the file's line endings (a final line ending added when the old lines had one).
 *
 * @param source The parsed file.
 * @param symbol The symbol to replace.
 * @param newContent The new lines.
 * @returns The new text.
 */
function spliceDefinition(
  source: LoadedSource,
  symbol: Defined,
  newContent: string,
): string {
  const text = source.file.text;
  const offsets = lineOffsets(text);
  const start = offsets[symbol.startLine - 1]!;
  const end = offsets[symbol.endLine] ?? text.length;
  let replacement = withEol(newContent, source.file.eol);
  if (
    replacement.length > 0 && !/[\r\n]$/.test(replacement) && /[\r\n]$/.test(text.slice(start, end))
  ) {
    replacement += source.file.eol;
  }
  return text.slice(0, start) + replacement + text.slice(end);
}

/** Counts a text's parse errors, and says where the first are. */
export type ErrorCheck = (text: string) => Promise<{ count: number; where: string[] }>;

/** A change to one definition. */
export interface DefinitionEdit {
  /** The symbol to replace. */
  symbol: Defined;
  /** Its new lines. */
  newContent: string;
  /** Counts the new text's parse errors; omitted with allow_syntax_errors. */
  check: ErrorCheck | undefined;
}

/**
 * Replace a symbol's whole lines with new content and write the file:
 * refused when the result has more parse errors than the file had (unless
 * no check is given), written atomically in the file's own encoding otherwise.
 *
 * @param ctx The tool context.
 * @param source The parsed file as it was.
 * @param edit The symbol, its new lines, and how to count parse errors.
 * @returns What was done, with the diff.
 * @throws {ToolError} `syntax_error` when the result has new parse errors.
 */
export async function updateDefinition(
  ctx: ToolContext,
  source: LoadedSource,
  edit: DefinitionEdit,
): Promise<ToolResult> {
  const { symbol, check } = edit;
  const updated = spliceDefinition(source, symbol, edit.newContent);
  const display = source.resolved.display;
  // Unchanged text is the parse the source already has: it cannot have more errors than itself,
  // so the check (a parse or two of the whole file) is not run for it.
  if (updated === source.file.text) {
    return editResult(`${symbol.qualified} in "${display}" already reads so; nothing changed`, []);
  }
  const before = errorCount(source.tree);
  if (check) {
    const { count, where } = await check(updated);
    if (count > before) {
      throw new ToolError(
        "syntax_error",
        `Cannot update "${symbol.qualified}": the result has ${
          count - before
        } new parse error(s) (${where.join("; ")}); fix content, or pass allow_syntax_errors: true`,
      );
    }
  }
  const diff = saveText(ctx, source, updated);
  const end = symbol.endLine + lineCount(updated) - lineCount(source.file.text);
  return editResult(
    `Updated ${symbol.qualified}: now ${
      location(display, symbol.startLine, end)
    } (was ${symbol.startLine}-${symbol.endLine})`,
    [diff],
  );
}

/** A body a skeleton leaves out. */
export interface ElidedBody {
  /** Where it starts (offset). */
  start: number;
  /** Where it ends (offset, exclusive). */
  end: number;
  /** Where its definition is, `path:start-end`, shown in its place. */
  where: string;
}

/**
 * A text with bodies replaced by `{ ... /* path:start-end *\/ }`; a body
 * nested in one already replaced is left to it.
 *
 * @param text The file's text.
 * @param bodies The bodies, in any order.
 * @returns The skeleton.
 */
export function elideBodies(text: string, bodies: readonly ElidedBody[]): string {
  let out = "";
  let at = 0;
  for (const body of [...bodies].sort((a, b) => a.start - b.start)) {
    if (body.start < at) continue; // nested in a body already elided
    out += `${text.slice(at, body.start)}{ ... /* ${body.where} */ }`;
    at = body.end;
  }
  return out + text.slice(at);
}
