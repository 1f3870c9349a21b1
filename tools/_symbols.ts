/**
 * The one shape of a code symbol, whatever its language: Python
 * (`python/_symbols.ts`), C/C++ (`cfamily/_symbols.ts`) and
 * TypeScript/JavaScript (`typescript/_symbols.ts`) each extend it with only
 * what they add. Here too: walking symbols, and the outline clients see
 * (whose field names are snake_case, as in every tool output).
 *
 * @module
 */

import { z } from "zod";

/** A definition in source code, with the definitions nested in it. */
export interface CodeSymbol {
  /** What it is (`class`, `function`, `method`, `struct`, `interface`, …). */
  kind: string;
  /** Its own name (as written). */
  name: string;
  /** Its name from the top of the file (`Outer.Inner.method`, `ns::A::f`). */
  qualified: string;
  /** First line, 1-based (its decorators, `export` or `template <…>` included). */
  startLine: number;
  /** Last line, 1-based. */
  endLine: number;
  /** The symbols nested in it. */
  children: CodeSymbol[];
}

/** A symbol that also knows where it is in the source text (C/C++, TS/JS). */
export interface IndexedSymbol extends CodeSymbol {
  /** Start offset in the source (tree-sitter index), where `startLine` starts. */
  startIndex: number;
  /** End offset (exclusive). */
  endIndex: number;
  /** Where its body starts (functions, classes), for signatures and skeletons. */
  bodyIndex: number | undefined;
  /** The symbols nested in it. */
  children: IndexedSymbol[];
}

/**
 * Every symbol, depth first (each before its children).
 *
 * @param symbols Top-level symbols.
 * @returns The flat list.
 */
export function flattenSymbols<S extends CodeSymbol & { children: readonly S[] }>(
  symbols: readonly S[],
): S[] {
  const out: S[] = [];
  const visit = (list: readonly S[]) => {
    for (const symbol of list) {
      out.push(symbol);
      visit(symbol.children);
    }
  };
  visit(symbols);
  return out;
}

/**
 * A location as every tool writes it: `path:start-end` (lines, 1-based, inclusive).
 *
 * @param path The file, as shown to the model.
 * @param start First line.
 * @param end Last line.
 * @returns E.g. `src/shapes.py:13-35`.
 */
export function location(path: string, start: number, end: number): string {
  return `${path}:${start}-${end}`;
}

/** One outline entry, as `structuredContent` has it (the same in every language). */
export interface OutlineSymbol {
  /** function, class, method, struct, interface, … (what the language's symbols say). */
  kind: string;
  /** Its name as written. */
  name: string;
  /** Its file, as shown to the model. */
  path: string;
  /** First line, 1-based. */
  start_line: number;
  /** Last line, 1-based. */
  end_line: number;
  /** Nested symbols. */
  children: OutlineSymbol[];
  /** C++ base classes as written (`public Shape`), when there are any. */
  bases?: string | undefined;
}

/** What an outline entry is made from: a symbol, with C++ base classes when it has some. */
export interface OutlineSource extends CodeSymbol {
  /** C++ base classes as written. */
  bases?: string | undefined;
  /** Nested symbols. */
  children: OutlineSource[];
}

/**
 * The outline entries of symbols, nested as they are.
 *
 * @param symbols Top-level symbols.
 * @param path Their file, as shown to the model.
 * @returns The entries clients see.
 */
export function outlineOf(symbols: readonly OutlineSource[], path: string): OutlineSymbol[] {
  return symbols.map((symbol) => ({
    kind: symbol.kind,
    name: symbol.name,
    path,
    start_line: symbol.startLine,
    end_line: symbol.endLine,
    children: outlineOf(symbol.children, path),
    ...(symbol.bases ? { bases: symbol.bases } : {}),
  }));
}

/** How outline lines are written. */
export interface OutlineStyle {
  /** Indentation level of the top entries (two spaces each); 0 unless told. */
  depth?: number;
  /** The label of a kind (`Func` for `function`); the kind capitalized unless told. */
  label?: (kind: string) => string;
}

/**
 * Outline entries as text, one line each: `[Kind] Name : bases (path:X-Y)`,
 * children indented under their parent.
 *
 * @param symbols The entries.
 * @param style Indentation and labels.
 * @returns The lines.
 */
export function outlineLines(
  symbols: readonly OutlineSymbol[],
  style: OutlineStyle = {},
): string[] {
  const label = style.label ?? capitalized;
  const depth = style.depth ?? 0;
  return symbols.flatMap((symbol) => [
    `${"  ".repeat(depth)}[${label(symbol.kind)}] ${symbol.name}${
      symbol.bases ? ` : ${symbol.bases}` : ""
    } (${location(symbol.path, symbol.start_line, symbol.end_line)})`,
    ...outlineLines(symbol.children, { label, depth: depth + 1 }),
  ]);
}

function capitalized(kind: string): string {
  return `${kind.slice(0, 1).toUpperCase()}${kind.slice(1)}`;
}

/** One outline entry's shape (recursive). */
export const OUTLINE_ENTRY: z.ZodType<OutlineSymbol> = z.lazy(() =>
  z.object({
    kind: z.string(),
    name: z.string(),
    path: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    children: z.array(OUTLINE_ENTRY),
    bases: z.string().optional(),
  })
);

/** The outline's shape (`symbols` as the Python outline's, plus parse warnings). */
export const OUTLINE_OUTPUT = z.object({
  symbols: z.array(OUTLINE_ENTRY),
  warnings: z.array(z.string()),
});
