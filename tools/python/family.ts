/**
 * The Python tools: outline, fetch and rewrite definitions with tree-sitter.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The Python tools' declaration. */
export const PYTHON: ToolFamily = defineFamily({
  name: "python",
  runs: "worker",
  icon: ICONS.python,
  grammars: [{
    name: "python",
    extensions: [".py", ".pyi"],
    wasm: new URL("../../node_modules/tree-sitter-python/tree-sitter-python.wasm", import.meta.url),
  }],
  prefersCodeWorker: true,
  pathArgs: ["path", "source", "destination"],
});
