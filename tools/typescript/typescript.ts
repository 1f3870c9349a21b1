/**
 * TypeScript and JavaScript tools (beyond seed 001, so the host can read
 * code of its own kind): outline, skeleton, definition, update. One family
 * for .ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { type Grammar, grammarForPath, treeSitter } from "../_treesitter.ts";
import { defineTool, type Tool } from "../tool.ts";
import { errorCount, parseWarnings } from "../cfamily/_symbols.ts";
import {
  definitionResult,
  findSymbol,
  loadSource,
  spliceDefinition,
  writeDefinition,
} from "../cfamily/_load.ts";
import { OUTLINE_OUTPUT, type OutlineSymbol } from "../cfamily/cfamily.ts";
import { flattenJs, type JsSymbol, jsSymbols } from "./_symbols.ts";

const PATH = z.string().min(1).describe(
  "Path of a .ts, .tsx, .mts, .cts, .js, .jsx, .mjs or .cjs file",
);
const NAME = z.string().min(1).describe(
  "The symbol: `name`, `Class.method`, `Namespace.fn`, an interface, type or enum",
);

function grammarOf(path: string): Grammar {
  const grammar = grammarForPath(path);
  if (grammar !== "typescript" && grammar !== "tsx") {
    throw new ToolError(
      "unsupported",
      `Cannot read "${path}" as TypeScript or JavaScript: use a .ts/.tsx/.js/.jsx/.mjs/.cjs file`,
    );
  }
  return grammar;
}

function outlineOf(symbols: readonly JsSymbol[]): OutlineSymbol[] {
  return symbols.map((s) => ({
    kind: s.kind,
    name: s.name,
    start_line: s.start_line,
    end_line: s.end_line,
    children: outlineOf(s.children),
  }));
}

function outlineText(symbols: readonly OutlineSymbol[], depth = 0): string[] {
  return symbols.flatMap((s) => [
    `${"  ".repeat(depth)}[${s.kind[0]!.toUpperCase()}${
      s.kind.slice(1)
    }] ${s.name} (Lines ${s.start_line}-${s.end_line})`,
    ...outlineText(s.children, depth + 1),
  ]);
}

/** Outline a TS/JS file. */
export const tsJsGetCodeOutline: Tool = defineTool({
  name: "ts_js_get_code_outline",
  description:
    "Outline a TypeScript or JavaScript file: functions (also `const f = () => …`), classes with their methods and fields, interfaces, type aliases, enums and namespaces, with line ranges, nested, as `[Kind] Name (Lines X-Y)`. Use it before ts_js_get_definition.",
  input: z.object({ path: PATH }),
  output: OUTLINE_OUTPUT,
  annotations: { title: "TS/JS outline", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(path));
    const symbols = outlineOf(jsSymbols(source.tree));
    const warnings = parseWarnings(source.tree);
    const lines = outlineText(symbols);
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
    "The TypeScript/JavaScript file with every function and method body replaced by `{ ... }`: imports, exports, signatures, types, interfaces and class shapes stay. Use it to see a module's API in a fraction of its size.",
  input: z.object({ path: PATH }),
  annotations: { title: "TS/JS skeleton", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(path));
    const text = source.file.text;
    const bodies = flattenJs(jsSymbols(source.tree))
      .filter((s) =>
        (s.kind === "function" || s.kind === "method") && s.bodyIndex !== undefined &&
        text[s.bodyIndex] === "{"
      )
      .map((s) => [s.bodyIndex!, s.bodyEndIndex!] as const)
      .sort((a, b) => a[0] - b[0]);
    let out = "";
    let at = 0;
    for (const [start, end] of bodies) {
      if (start < at) continue;
      out += `${text.slice(at, start)}{ ... }`;
      at = end;
    }
    return out + text.slice(at);
  },
});

/** One symbol's whole source. */
export const tsJsGetDefinition: Tool = defineTool({
  name: "ts_js_get_definition",
  description:
    "The full source of one TypeScript/JavaScript symbol — a function, `Class.method`, class, interface, type alias, enum or namespace — as whole lines (an `export` in front included), with its line range.",
  input: z.object({ path: PATH, name: NAME }),
  output: z.object({
    name: z.string(),
    kind: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    source: z.string(),
  }),
  annotations: { title: "TS/JS definition", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const source = await loadSource(ctx, path, grammarOf(path));
    const symbol = findSymbol(
      flattenJs(jsSymbols(source.tree)),
      name,
      ".",
      source.resolved.display,
    );
    return definitionResult(source, symbol);
  },
});

/** Replace one symbol's definition. */
export const tsJsUpdateDefinition: Tool = defineTool({
  name: "ts_js_update_definition",
  description:
    "Replace one TypeScript/JavaScript symbol's whole definition (its lines, as ts_js_get_definition shows them) with new_content. Encoding and line endings are kept; the write is atomic; a result with new parse errors is refused (syntax_error) unless allow_syntax_errors is true; a file changed since you read it is refused (stale_read) unless force is true.",
  input: z.object({
    path: PATH,
    name: NAME,
    new_content: z.string().describe("The new definition, whole lines"),
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even if the result has new parse errors",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if the file changed since you last read it",
    ),
  }),
  annotations: { title: "Update TS/JS definition", destructiveHint: true },
  async run({ path, name, new_content, allow_syntax_errors }, ctx) {
    // What is wrong with the path itself (protected, missing) is said before what kind of file it is.
    await ctx.fs.resolve(path, "file");
    const grammar = grammarOf(path);
    const source = await loadSource(ctx, path, grammar);
    const before = errorCount(source.tree);
    const symbol = findSymbol(
      flattenJs(jsSymbols(source.tree)),
      name,
      ".",
      source.resolved.display,
    );
    const updated = spliceDefinition(source, symbol, new_content);
    const check = allow_syntax_errors ? undefined : async () => {
      const tree = await treeSitter(ctx).parseText(updated, grammar);
      try {
        return { count: errorCount(tree), where: parseWarnings(tree, 3) };
      } finally {
        tree.delete();
      }
    };
    return await writeDefinition(ctx, source, symbol, updated, before, check);
  },
});

/** The TypeScript/JavaScript tools. */
export const TYPESCRIPT_TOOLS: readonly Tool[] = Object.freeze([
  tsJsGetCodeOutline,
  tsJsGetSkeleton,
  tsJsGetDefinition,
  tsJsUpdateDefinition,
]);
