/**
 * The TypeScript and JavaScript tools: outline, fetch and rewrite
 * definitions with tree-sitter. JavaScript is parsed with the TSX grammar,
 * which accepts it.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

const PACKAGE = "../../node_modules/tree-sitter-typescript/";

/** The TypeScript and JavaScript tools' declaration. */
export const TYPESCRIPT: ToolFamily = defineFamily({
  name: "typescript",
  runs: "worker",
  icon: ICONS.typescript,
  grammars: [{
    name: "typescript",
    extensions: [".ts", ".mts", ".cts"],
    wasm: new URL(`${PACKAGE}tree-sitter-typescript.wasm`, import.meta.url),
  }, {
    name: "tsx",
    extensions: [".tsx", ".js", ".mjs", ".cjs", ".jsx"],
    wasm: new URL(`${PACKAGE}tree-sitter-tsx.wasm`, import.meta.url),
  }],
  prefersCodeWorker: true,
  pathArgs: ["path"],
});
