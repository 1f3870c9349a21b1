/**
 * The C and C++ tools of seed 001 (`ts_c_*`, `ts_cpp_*`): outline, skeleton,
 * definition, signature, update. One family: the two languages share all
 * but their grammar and names.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type Tool } from "../tool.ts";
import { flattenSymbols, OUTLINE_OUTPUT, outlineLines, outlineOf } from "../_symbols.ts";
import { errorCount, parseWarnings } from "../_diagnostics.ts";
import { type CSymbol, cSymbols, lookupSymbols } from "./_symbols.ts";
import { bestErrors, parseC } from "./_parse.ts";
import {
  DEFINITION_OUTPUT,
  definitionResult,
  elideBodies,
  findSymbol,
  type LoadedSource,
  loadSource,
  type SourceParser,
  UPDATE_FIELDS,
  updateDefinition,
} from "../_definitions.ts";

type Lang = "c" | "cpp";

/** C and C++ are parsed with their conditionals blanked where that parses better (`_parse.ts`). */
const parseCFamily: SourceParser = (ctx, resolved, text, grammar) =>
  parseC(ctx, resolved, text, grammar === "cpp" ? "cpp" : "c");

const LABEL: Record<Lang, string> = { c: "C", cpp: "C++" };

/** The one symbol `name` names in a C/C++ file (definitions win over prototypes). */
function lookup(source: LoadedSource, name: string): CSymbol {
  return findSymbol(lookupSymbols(source.tree), name, "::", source.resolved.display);
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
      const source = await loadSource(ctx, path, lang, parseCFamily);
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
      const lines = outlineLines(symbols);
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
      const source = await loadSource(ctx, path, lang, parseCFamily);
      const bodies = flattenSymbols(cSymbols(source.tree))
        .filter((symbol) =>
          (symbol.kind === "function" || symbol.kind === "method") && symbol.bodyIndex !== undefined
        )
        .map((symbol) => [symbol.bodyIndex!, symbol.endIndex] as const);
      return elideBodies(source.file.text, bodies);
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
    output: DEFINITION_OUTPUT,
    annotations: { title: `${LABEL[lang]} definition`, readOnlyHint: true, idempotentHint: true },
    async run({ path, name }, ctx) {
      const source = await loadSource(ctx, path, lang, parseCFamily);
      const symbol = lookup(source, name);
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
      const source = await loadSource(ctx, path, lang, parseCFamily);
      const symbol = lookup(source, name);
      const text = source.file.text;
      const end = symbol.bodyIndex ?? symbol.endIndex;
      const signature = text.slice(symbol.startIndex, end).replace(/\s+$/, "").replace(/;$/, "");
      return `${source.resolved.display}:${symbol.startLine} ${signature}`;
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
      ...UPDATE_FIELDS,
    }),
    annotations: { title: `Update ${LABEL[lang]} definition`, destructiveHint: true },
    async run({ path, name, new_content, allow_syntax_errors }, ctx) {
      const source = await loadSource(ctx, path, lang, parseCFamily);
      return await updateDefinition(ctx, source, {
        symbol: lookup(source, name),
        newContent: new_content,
        check: allow_syntax_errors ? undefined : (text) => bestErrors(ctx, text, lang),
      });
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
