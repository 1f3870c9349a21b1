/**
 * The C and C++ tools of seed 001 (`ts_c_*`, `ts_cpp_*`): outline, skeleton,
 * definition, signature, update. One family: the two languages share all
 * but their grammar and names.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type Tool } from "../tool.ts";
import {
  type CSymbol,
  cSymbols,
  errorCount,
  flatten,
  lookupSymbols,
  parseWarnings,
} from "./_symbols.ts";
import { bestErrors } from "./_parse.ts";
import {
  definitionResult,
  findSymbol,
  loadSource,
  spliceDefinition,
  writeDefinition,
} from "./_load.ts";

type Lang = "c" | "cpp";

const LABEL: Record<Lang, string> = { c: "C", cpp: "C++" };

/** One outline entry: the same shape as the Python outline's. */
export interface OutlineSymbol {
  /** function, prototype, method, struct, union, enum, typedef, class, namespace (C/C++); function, class, method, field, interface, type, enum, namespace, object (TS/JS). */
  kind: string;
  /** Its name as written. */
  name: string;
  /** First line, 1-based. */
  start_line: number;
  /** Last line, 1-based. */
  end_line: number;
  /** Nested symbols. */
  children: OutlineSymbol[];
  /** C++ base classes as written (`public Shape`), when there are any. */
  bases?: string | undefined;
}

const OUTLINE_ENTRY: z.ZodType<OutlineSymbol> = z.lazy(() =>
  z.object({
    kind: z.string(),
    name: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    children: z.array(OUTLINE_ENTRY),
    bases: z.string().optional().describe("C++ base classes as written"),
  })
);

/** The outline's shape (`symbols` as the Python outline's, plus parse warnings). */
export const OUTLINE_OUTPUT = z.object({
  symbols: z.array(OUTLINE_ENTRY),
  warnings: z.array(z.string()).describe("Parse errors (in C/C++ usually macros); parsing went on"),
});

function outlineOf(symbols: readonly CSymbol[]): OutlineSymbol[] {
  return symbols.map((symbol) => ({
    kind: symbol.kind,
    name: symbol.name,
    start_line: symbol.start_line,
    end_line: symbol.end_line,
    children: outlineOf(symbol.children),
    ...(symbol.bases ? { bases: symbol.bases } : {}),
  }));
}

function outlineText(symbols: readonly OutlineSymbol[], depth = 0): string[] {
  return symbols.flatMap((symbol) => [
    `${"  ".repeat(depth)}[${symbol.kind[0]!.toUpperCase()}${symbol.kind.slice(1)}] ${symbol.name}${
      symbol.bases ? ` : ${symbol.bases}` : ""
    } (Lines ${symbol.start_line}-${symbol.end_line})`,
    ...outlineText(symbol.children, depth + 1),
  ]);
}

const PATH = z.string().min(1).describe("Path of the source or header file");
const NAME = (lang: Lang) =>
  z.string().min(1).describe(
    lang === "cpp"
      ? "The symbol: `name`, `Class::method`, `ns::Class::method`, or an out-of-line `Class::method`"
      : "The function, struct, union, enum or typedef name",
  );

function outlineTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_code_outline`,
    description: `Outline a ${LABEL[lang]} file: every ${
      lang === "cpp"
        ? "namespace, class (with its bases), struct, method, data member, "
        : "struct, union, enum, typedef, struct member, "
    }function definition and prototype with its line range, nested, as \`[Kind] Name (Lines X-Y)\`. Parse errors (usually macros) are listed as warnings. Use it to find what to read with ts_${lang}_get_definition.`,
    input: z.object({ path: PATH }),
    output: OUTLINE_OUTPUT,
    annotations: { title: `${LABEL[lang]} outline`, readOnlyHint: true, idempotentHint: true },
    async run({ path }, ctx) {
      const source = await loadSource(ctx, path, lang);
      const symbols = outlineOf(cSymbols(source.tree));
      const warnings = [
        ...(source.masked
          ? [
            "parsed with #if/#ifdef directives blanked (as written it does not parse); where branches would unbalance braces, only the first is read",
          ]
          : []),
        ...parseWarnings(source.tree),
      ];
      const errors = errorCount(source.tree);
      const shown = warnings.filter((w) => w.startsWith("line ")).length;
      if (errors > shown) warnings.push(`… ${errors - shown} more parse errors not listed`);
      const lines = outlineText(symbols);
      const text = [
        ...(lines.length ? lines : ["(no symbols)"]),
        ...(warnings.length
          ? ["", `warnings (parsing went on past them):`, ...warnings.map((w) => `  ${w}`)]
          : []),
      ].join("\n");
      return { content: [{ type: "text", text }], structuredContent: { symbols, warnings } };
    },
  });
}

function skeletonTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_skeleton`,
    description: `The ${
      LABEL[lang]
    } file with every function body replaced by \`{ ... }\`: signatures, ${
      lang === "cpp" ? "classes with their members and inheritance" : "struct definitions"
    }, prototypes, includes and macros stay. Use it to see a file's API in a fraction of its size.`,
    input: z.object({ path: PATH }),
    annotations: { title: `${LABEL[lang]} skeleton`, readOnlyHint: true, idempotentHint: true },
    async run({ path }, ctx) {
      const source = await loadSource(ctx, path, lang);
      const text = source.file.text;
      const bodies = flatten(cSymbols(source.tree))
        .filter((symbol) =>
          (symbol.kind === "function" || symbol.kind === "method") && symbol.bodyIndex !== undefined
        )
        .map((symbol) => [symbol.bodyIndex!, symbol.endIndex] as const);
      let out = "";
      let at = 0;
      for (const [start, end] of bodies.sort((a, b) => a[0] - b[0])) {
        if (start < at) continue; // nested in a body already elided
        out += `${text.slice(at, start)}{ ... }`;
        at = end;
      }
      return out + text.slice(at);
    },
  });
}

function definitionTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_definition`,
    description: `The full source of one ${LABEL[lang]} symbol — function, ${
      lang === "cpp" ? "method (in its class or out of line), class, namespace, " : ""
    }struct, union, enum or typedef — as whole lines, with its line range. A definition is preferred over a prototype of the same name.`,
    input: z.object({ path: PATH, name: NAME(lang) }),
    output: z.object({
      name: z.string(),
      kind: z.string(),
      start_line: z.number(),
      end_line: z.number(),
      source: z.string(),
    }),
    annotations: { title: `${LABEL[lang]} definition`, readOnlyHint: true, idempotentHint: true },
    async run({ path, name }, ctx) {
      const source = await loadSource(ctx, path, lang);
      const symbol = findSymbol(
        lookupSymbols(source.tree),
        name,
        "::",
        source.resolved.display,
      );
      return definitionResult(source, symbol);
    },
  });
}

function signatureTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_signature`,
    description: `Only the declaration of one ${
      LABEL[lang]
    } symbol: a function's or method's signature up to its body, or a ${
      lang === "cpp" ? "class's or " : ""
    }struct's header line. Cheaper than the whole definition.`,
    input: z.object({ path: PATH, name: NAME(lang) }),
    annotations: { title: `${LABEL[lang]} signature`, readOnlyHint: true, idempotentHint: true },
    async run({ path, name }, ctx) {
      const source = await loadSource(ctx, path, lang);
      const symbol = findSymbol(
        lookupSymbols(source.tree),
        name,
        "::",
        source.resolved.display,
      );
      const text = source.file.text;
      const end = symbol.bodyIndex ?? symbol.endIndex;
      const signature = text.slice(symbol.startIndex, end).replace(/\s+$/, "").replace(/;$/, "");
      return `${source.resolved.display}:${symbol.start_line} ${signature}`;
    },
  });
}

function updateTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_update_definition`,
    description: `Replace one ${
      LABEL[lang]
    } symbol's whole definition (its lines, as ts_${lang}_get_definition shows them) with new_content. The file keeps its encoding and line endings; the write is atomic; a result with more parse errors than before is refused (syntax_error) unless allow_syntax_errors is true. If the file changed since you read it, the edit is refused with stale_read (pass force: true to edit anyway).`,
    input: z.object({
      path: PATH,
      name: NAME(lang),
      new_content: z.string().describe("The new definition, whole lines"),
      allow_syntax_errors: z.boolean().default(false).describe(
        "Write even if the result has new parse errors",
      ),
      force: z.boolean().default(false).describe(
        "Edit even if the file changed since you last read it",
      ),
    }),
    annotations: { title: `Update ${LABEL[lang]} definition`, destructiveHint: true },
    async run({ path, name, new_content, allow_syntax_errors }, ctx) {
      const source = await loadSource(ctx, path, lang);
      const before = errorCount(source.tree);
      const symbol = findSymbol(
        lookupSymbols(source.tree),
        name,
        "::",
        source.resolved.display,
      );
      const updated = spliceDefinition(source, symbol, new_content);
      const check = allow_syntax_errors ? undefined : () => bestErrors(ctx, updated, lang);
      return await writeDefinition(ctx, source, symbol, updated, before, check);
    },
  });
}

/** Every C and C++ tool, C first. */
export const CFAMILY_TOOLS: readonly Tool[] = Object.freeze(
  (["c", "cpp"] as const).flatMap((lang) => [
    skeletonTool(lang),
    outlineTool(lang),
    definitionTool(lang),
    updateTool(lang),
    signatureTool(lang),
  ]),
);
