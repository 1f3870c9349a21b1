/**
 * Loading a C/C++/TS/JS file for the definition tools: decode, parse (cached),
 * and find a symbol by name with candidates on failure.
 *
 * @module
 */

import type { Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { decodeText, encodeText, type TextFile, withEol } from "../_text.ts";
import { type Grammar, treeSitter } from "../_treesitter.ts";
import type { ToolContext, ToolResult } from "../tool.ts";
import { parseC } from "./_parse.ts";

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
): Promise<LoadedSource> {
  const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxEditBytes);
  const file = decodeText(bytes, resolved.display);
  if (grammar === "c" || grammar === "cpp") {
    return { resolved, file, ...await parseC(ctx, resolved, file.text, grammar) };
  }
  const parsed = await treeSitter(ctx).parseFile(resolved, file.text, grammar);
  return { resolved, file, tree: parsed.tree, masked: false };
}

/** What name lookup needs of a symbol. */
export interface Named {
  /** Its kind. */
  kind: string;
  /** Its qualified name. */
  qualified: string;
  /** Its first line. */
  start_line: number;
  /** Where its body starts, if it has one. */
  bodyIndex: number | undefined;
}

/**
 * Find one symbol by name: an exact qualified name, else a unique one whose
 * qualified name ends with it (`Class::method` finds `ns::Class::method`).
 * Definitions win over prototypes of the same name, and an implementation
 * over its overload signatures.
 *
 * @param symbols Every symbol of the file.
 * @param name The name asked for.
 * @param separator `::` or `.`.
 * @param display The file, for messages.
 * @returns The symbol.
 * @throws {ToolError} `not_found` or `ambiguous_match`, listing candidates.
 */
export function findSymbol<T extends Named>(
  symbols: readonly T[],
  name: string,
  separator: string,
  display: string,
): T {
  const wanted = name.trim();
  let matches = symbols.filter((symbol) => symbol.qualified === wanted);
  if (matches.length === 0) {
    matches = symbols.filter((symbol) => symbol.qualified.endsWith(`${separator}${wanted}`));
  }
  if (matches.length > 1) {
    const definitions = matches.filter((symbol) => symbol.kind !== "prototype");
    if (definitions.length === 1) return definitions[0]!;
    // TypeScript overloads: the one signature with a body is the implementation.
    const bodies = definitions.filter((symbol) => symbol.bodyIndex !== undefined);
    if (bodies.length === 1 && bodies[0]!.kind !== "class") return bodies[0]!;
  }
  if (matches.length === 1) return matches[0]!;
  const list = (items: readonly T[]) =>
    items.slice(0, 30).map((symbol) =>
      `${symbol.qualified} (${symbol.kind}, line ${symbol.start_line})`
    ).join(", ");
  if (matches.length > 1) {
    throw new ToolError(
      "ambiguous_match",
      `"${wanted}" matches ${matches.length} symbols in "${display}": ${
        list(matches)
      }; use a qualified name`,
    );
  }
  const last = wanted.split(separator).at(-1)!;
  const near = symbols.filter((symbol) =>
    symbol.qualified.split(separator).at(-1)!.toLowerCase().includes(last.toLowerCase())
  );
  throw new ToolError(
    "not_found",
    `No symbol "${wanted}" in "${display}".${
      near.length ? ` Similar: ${list(near)}` : ` It has: ${list(symbols)}`
    }`,
  );
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
export interface Defined extends Named {
  /** Its last line. */
  end_line: number;
}

/**
 * The result of a get-definition tool: the symbol's whole lines.
 *
 * @param source The parsed file.
 * @param symbol The symbol found.
 * @returns Text with a header, and `{name, kind, start_line, end_line, source}`.
 */
export function definitionResult(source: LoadedSource, symbol: Defined): ToolResult {
  const text = wholeLines(source.file.text, symbol.start_line, symbol.end_line);
  const where = `${source.resolved.display}:${symbol.start_line}-${symbol.end_line}`;
  return {
    content: [{ type: "text", text: `${where} ${symbol.qualified}\n${text}` }],
    structuredContent: {
      name: symbol.qualified,
      kind: symbol.kind,
      start_line: symbol.start_line,
      end_line: symbol.end_line,
      source: text,
    },
  };
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
export function spliceDefinition(
  source: LoadedSource,
  symbol: Defined,
  newContent: string,
): string {
  const text = source.file.text;
  const offsets = lineOffsets(text);
  const start = offsets[symbol.start_line - 1]!;
  const end = offsets[symbol.end_line] ?? text.length;
  let replacement = withEol(newContent, source.file.eol);
  if (
    replacement.length > 0 && !/[\r\n]$/.test(replacement) && /[\r\n]$/.test(text.slice(start, end))
  ) {
    replacement += source.file.eol;
  }
  return text.slice(0, start) + replacement + text.slice(end);
}

/**
 * Write an updated definition: refused when the result has more parse errors
 * than the file had (unless no check is given), written atomically in the
 * file's own encoding otherwise.
 *
 * @param ctx The tool context.
 * @param source The parsed file as it was.
 * @param symbol The symbol replaced.
 * @param updated The file's new text.
 * @param before The file's parse errors before.
 * @param check Counts the new text's parse errors (and says where); omitted with allow_syntax_errors.
 * @returns What was done, for the model.
 * @throws {ToolError} `syntax_error` when the result has new parse errors.
 */
export async function writeDefinition(
  ctx: ToolContext,
  source: LoadedSource,
  symbol: Defined,
  updated: string,
  before: number,
  check: (() => Promise<{ count: number; where: string[] }>) | undefined,
): Promise<string> {
  if (check) {
    const { count, where } = await check();
    if (count > before) {
      throw new ToolError(
        "syntax_error",
        `Cannot update "${symbol.qualified}": the result has ${
          count - before
        } new parse error(s) (${
          where.join("; ")
        }); fix new_content, or pass allow_syntax_errors: true`,
      );
    }
  }
  if (updated !== source.file.text) {
    ctx.fs.writeResolved(source.resolved, encodeText(updated, source.file));
  }
  return `Updated ${symbol.qualified} in "${source.resolved.display}" (was lines ${symbol.start_line}-${symbol.end_line})`;
}
