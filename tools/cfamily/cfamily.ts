/**
 * The C and C++ tools of seed 001 (`ts_c_*`, `ts_cpp_*`): outline, skeleton,
 * definition, signature, update. One family: the two languages share all
 * but their grammar and names.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type Tool } from "../tool.ts";
import { flattenSymbols, location, OUTLINE_OUTPUT, outlineLines, outlineOf } from "../_symbols.ts";
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

const PATH = z.string().min(1);
const NAME = (lang: Lang) =>
  z.string().min(1).describe(
    lang === "cpp"
      ? "`name`, `Class::method` or `ns::Class::method`"
      : "Function, struct, enum or typedef",
  );

function outlineTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_code_outline`,
    description: `Outline a ${LABEL[lang]} file: ${
      lang === "cpp" ? "namespaces, classes, members, " : "structs, enums, typedefs, "
    }functions and prototypes, nested, each with path:start-end.`,
    input: z.object({ path: PATH }),
    output: OUTLINE_OUTPUT,
    annotations: { title: `${LABEL[lang]} outline`, readOnlyHint: true, idempotentHint: true },
    async run({ path }, ctx) {
      const source = await loadSource(ctx, path, lang, parseCFamily);
      const symbols = outlineOf(cSymbols(source.tree), source.resolved.display);
      const warnings = [
        ...(source.masked
          ? [
            "parsed with #if/#ifdef directives and declaration macros blanked (as written it does not parse); where branches would unbalance braces, only the first is read",
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
    } file with function bodies replaced by \`{ ... }\` and their path:start-end: its API in a fraction of its size.`,
    input: z.object({ path: PATH }),
    annotations: { title: `${LABEL[lang]} skeleton`, readOnlyHint: true, idempotentHint: true },
    async run({ path }, ctx) {
      const source = await loadSource(ctx, path, lang, parseCFamily);
      const display = source.resolved.display;
      const bodies = flattenSymbols(cSymbols(source.tree))
        .filter((symbol) =>
          (symbol.kind === "function" || symbol.kind === "method") && symbol.bodyIndex !== undefined
        )
        .map((symbol) => ({
          start: symbol.bodyIndex!,
          end: symbol.endIndex,
          where: location(display, symbol.startLine, symbol.endLine),
        }));
      return elideBodies(source.file.text, bodies);
    },
  });
}

function definitionTool(lang: Lang): Tool {
  return defineTool({
    name: `ts_${lang}_get_definition`,
    description: `The source of one ${LABEL[lang]} function, ${
      lang === "cpp" ? "method, class, namespace, " : ""
    }struct, enum or typedef, whole lines, after a path:start-end line.`,
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
    } function or type, without its body: cheaper than ts_${lang}_get_definition.`,
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
    } definition (its lines as ts_${lang}_get_definition shows them) with \`content\`; refused if it adds parse errors.`,
    input: z.object({
      path: PATH,
      name: NAME(lang),
      ...UPDATE_FIELDS,
    }),
    annotations: { title: `Update ${LABEL[lang]} definition`, destructiveHint: true },
    async run({ path, name, content, allow_syntax_errors }, ctx) {
      const source = await loadSource(ctx, path, lang, parseCFamily);
      return await updateDefinition(ctx, source, {
        symbol: lookup(source, name),
        newContent: content,
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
