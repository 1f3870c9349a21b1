/**
 * TypeScript and JavaScript tools (beyond seed 001, so the host can read
 * code of its own kind): outline, skeleton, definition, update. One family
 * for .ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { type Grammar, treeSitter } from "../_treesitter.ts";
import { defineTool, type Tool, type ToolContext } from "../tool.ts";
import { errorCount, parseWarnings } from "../_diagnostics.ts";
import {
  DEFINITION_OUTPUT,
  definitionResult,
  elideBodies,
  findSymbol,
  type LoadedSource,
  loadSource,
  UPDATE_FIELDS,
  updateDefinition,
} from "../_definitions.ts";
import { flattenSymbols, location, OUTLINE_OUTPUT, outlineLines, outlineOf } from "../_symbols.ts";
import { jsSymbols } from "./_symbols.ts";
import type { JsSymbol } from "./_symbol_make.ts";

const PATH = z.string().min(1);
const NAME = z.string().min(1).describe("`name`, `Class.method` or `Namespace.fn`");

function grammarOf(ctx: ToolContext, path: string): Grammar {
  const grammar = treeSitter(ctx).grammarFor(path);
  if (grammar !== "typescript" && grammar !== "tsx") {
    throw new ToolError(
      "unsupported",
      `Cannot read "${path}" as TypeScript or JavaScript: use a .ts/.tsx/.js/.jsx/.mjs/.cjs file`,
    );
  }
  return grammar;
}

/** The one symbol `name` names in a TS/JS file (an implementation wins over its overloads). */
function lookup(source: LoadedSource, name: string): JsSymbol {
  return findSymbol(flattenSymbols(jsSymbols(source.tree)), name, ".", source.resolved.display);
}

/** The parse errors of a TS/JS text (for refusing edits that add some). */
async function parseErrors(
  ctx: ToolContext,
  text: string,
  grammar: Grammar,
): Promise<{ count: number; where: string[] }> {
  const tree = await treeSitter(ctx).parseText(text, grammar);
  try {
    return { count: errorCount(tree), where: parseWarnings(tree, 3) };
  } finally {
    tree.delete();
  }
}

/** Outline a TS/JS file. */
export const tsJsGetCodeOutline: Tool = defineTool({
  name: "ts_js_get_code_outline",
  description:
    "Outline a TypeScript or JavaScript file: functions, classes and their members, interfaces, types, enums, namespaces, exports (CommonJS too), nested, each with path:start-end.",
  input: z.object({ path: PATH }),
  output: OUTLINE_OUTPUT,
  annotations: { title: "TS/JS outline", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(ctx, path));
    const symbols = outlineOf(jsSymbols(source.tree), source.resolved.display);
    const warnings = parseWarnings(source.tree);
    const lines = outlineLines(symbols);
    const text = [
      ...(lines.length ? lines : ["(no symbols)"]),
      ...(warnings.length ? ["", "warnings:", ...warnings] : []),
    ];
    return {
      content: [{ type: "text", text: text.join("\n") }],
      structuredContent: { symbols, warnings },
    };
  },
});

/** The file with function and method bodies elided. */
export const tsJsGetSkeleton: Tool = defineTool({
  name: "ts_js_get_skeleton",
  description:
    "The TypeScript/JavaScript file with function bodies replaced by `{ ... }` and their path:start-end: its API in a fraction of its size.",
  input: z.object({ path: PATH }),
  annotations: { title: "TS/JS skeleton", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(ctx, path));
    const text = source.file.text;
    const display = source.resolved.display;
    const bodies = flattenSymbols(jsSymbols(source.tree))
      .filter((s) =>
        (s.kind === "function" || s.kind === "method") && s.bodyIndex !== undefined &&
        text[s.bodyIndex] === "{"
      )
      .map((s) => ({
        start: s.bodyIndex!,
        end: s.bodyEndIndex!,
        where: location(display, s.startLine, s.endLine),
      }));
    return elideBodies(text, bodies);
  },
});

/** One symbol's whole source. */
export const tsJsGetDefinition: Tool = defineTool({
  name: "ts_js_get_definition",
  description:
    "The source of one TypeScript/JavaScript function, class, method, interface, type, enum, namespace or export, whole lines, after a path:start-end line.",
  input: z.object({ path: PATH, name: NAME }),
  output: DEFINITION_OUTPUT,
  annotations: { title: "TS/JS definition", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(ctx, path));
    const symbol = lookup(source, name);
    return definitionResult(source, symbol);
  },
});

/** Replace one symbol's definition. */
export const tsJsUpdateDefinition: Tool = defineTool({
  name: "ts_js_update_definition",
  description:
    "Replace one TypeScript/JavaScript definition (its lines as ts_js_get_definition shows them) with `content`; refused if it adds parse errors.",
  input: z.object({
    path: PATH,
    name: NAME,
    ...UPDATE_FIELDS,
  }),
  annotations: { title: "Update TS/JS definition", destructiveHint: true },
  async run({ path, name, content, allow_syntax_errors }, ctx) {
    // What is wrong with the path itself (protected, missing) is said before what kind of file it is.
    await ctx.fs.resolve(path, "file");
    const grammar = grammarOf(ctx, path);
    const source = await loadSource(ctx, path, grammar);
    return await updateDefinition(ctx, source, {
      symbol: lookup(source, name),
      newContent: content,
      check: allow_syntax_errors ? undefined : (text) => parseErrors(ctx, text, grammar),
    });
  },
});

/** The TypeScript/JavaScript tools. */
export const TYPESCRIPT_TOOLS: readonly Tool[] = Object.freeze([
  tsJsGetCodeOutline,
  tsJsGetSkeleton,
  tsJsGetDefinition,
  tsJsUpdateDefinition,
]);
