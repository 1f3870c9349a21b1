/**
 * The C and C++ tools: outline and fetch definitions with tree-sitter.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The C and C++ tools' declaration. */
export const CFAMILY: ToolFamily = defineFamily({
  name: "cfamily",
  runs: "worker",
  icon: ICONS.cfamily,
  grammars: [{
    name: "c",
    extensions: [".c", ".h"],
    wasm: new URL("../../node_modules/tree-sitter-c/tree-sitter-c.wasm", import.meta.url),
  }, {
    name: "cpp",
    extensions: [".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"],
    wasm: new URL("../../node_modules/tree-sitter-cpp/tree-sitter-cpp.wasm", import.meta.url),
  }],
  prefersCodeWorker: true,
  pathArgs: ["path"],
});
