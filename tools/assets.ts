/**
 * Files outside the roots that tool code reads: the tree-sitter runtime and
 * the grammars the families declare. The tool worker gets read permission
 * for exactly these paths, and `deno task compile` includes them. Kept apart
 * from `mod.ts` so the host can name them without loading any tool.
 *
 * @module
 */

import { FAMILIES } from "./families.ts";

/** web-tree-sitter's runtime. */
export const RUNTIME_WASM: URL = new URL(
  "../node_modules/web-tree-sitter/web-tree-sitter.wasm",
  import.meta.url,
);

/** Each grammar's `.wasm`, by grammar name, as the families declare them. */
export const GRAMMAR_FILES: Readonly<Record<string, URL>> = Object.freeze(
  Object.fromEntries(
    FAMILIES.flatMap((family) => family.grammars ?? []).map((
      grammar,
    ) => [grammar.name, grammar.wasm]),
  ),
);

/** Every file tool code reads outside the roots. */
export const TOOL_ASSETS: readonly URL[] = Object.freeze([
  RUNTIME_WASM,
  ...Object.values(GRAMMAR_FILES),
]);
