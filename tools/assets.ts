/**
 * Files outside the roots that tool code reads (grammar `.wasm` files and the
 * like). The tool worker gets read permission for exactly these paths, and
 * `deno task compile` must `--include` them. Kept apart from `mod.ts` so the
 * host can name them without loading every tool.
 *
 * @module
 */

/** web-tree-sitter's runtime. */
export const RUNTIME_WASM: URL = new URL(
  "../node_modules/web-tree-sitter/web-tree-sitter.wasm",
  import.meta.url,
);

/** Each grammar's `.wasm`, as its npm package ships it. */
export const GRAMMAR_FILES: Readonly<Record<"python" | "c" | "cpp" | "typescript" | "tsx", URL>> =
  Object.freeze({
    python: new URL("../node_modules/tree-sitter-python/tree-sitter-python.wasm", import.meta.url),
    c: new URL("../node_modules/tree-sitter-c/tree-sitter-c.wasm", import.meta.url),
    cpp: new URL("../node_modules/tree-sitter-cpp/tree-sitter-cpp.wasm", import.meta.url),
    typescript: new URL(
      "../node_modules/tree-sitter-typescript/tree-sitter-typescript.wasm",
      import.meta.url,
    ),
    tsx: new URL("../node_modules/tree-sitter-typescript/tree-sitter-tsx.wasm", import.meta.url),
  });

/** Every file tool code reads outside the roots. */
export const TOOL_ASSETS: readonly URL[] = Object.freeze([
  RUNTIME_WASM,
  ...Object.values(GRAMMAR_FILES),
]);
