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

/**
 * The TypeScript compiler (`typescript.js`, loaded by the TS/JS symbol tools on
 * first use) and its library declarations (`lib.*.d.ts`), in one folder.
 */
export const TYPESCRIPT_LIB: URL = new URL("../../node_modules/typescript/lib/", import.meta.url);

/** The compiler package's manifest: the module loader reads it to find `typescript.js`. */
export const TYPESCRIPT_MANIFEST: URL = new URL(
  "../../node_modules/typescript/package.json",
  import.meta.url,
);

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
  assets: [TYPESCRIPT_LIB, TYPESCRIPT_MANIFEST],
  prefersCodeWorker: true,
  pathArgs: ["path"],
});
