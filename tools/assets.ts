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

/**
 * The TypeScript compiler (`typescript.js`, loaded by the TS/JS symbol tools on
 * first use) and its library declarations (`lib.*.d.ts`), in one folder.
 */
export const TYPESCRIPT_LIB: URL = new URL("../node_modules/typescript/lib/", import.meta.url);

/** The compiler package's manifest: the module loader reads it to find `typescript.js`. */
export const TYPESCRIPT_MANIFEST: URL = new URL(
  "../node_modules/typescript/package.json",
  import.meta.url,
);

/** Every file (or folder) tool code reads outside the roots. */
export const TOOL_ASSETS: readonly URL[] = Object.freeze([
  RUNTIME_WASM,
  ...Object.values(GRAMMAR_FILES),
  TYPESCRIPT_LIB,
  TYPESCRIPT_MANIFEST,
]);

/**
 * Environment variables tool code reads but is never given: the TypeScript
 * compiler reads these when it loads (its file watchers' settings, its
 * debug level, whether a debugger is attached). The served process is started with `--ignore-env` for
 * them, so that a read gives `undefined`, as for a variable not set,
 * instead of failing for want of a permission the tools must not have.
 */
export const IGNORED_ENV: readonly string[] = Object.freeze([
  "NODE_ENV",
  "TSC_WATCHFILE",
  "TSC_WATCHDIRECTORY",
  "TSC_NONPOLLING_WATCHER",
  "NODE_INSPECTOR_IPC",
  "VSCODE_INSPECTOR_OPTIONS",
  ...["POLLINGINTERVAL", "POLLINGCHUNKSIZE", "UNCHANGEDPOLLTHRESHOLDS"].flatMap((name) =>
    ["LOW", "MEDIUM", "HIGH"].map((level) => `TSC_WATCH_${name}_${level}`)
  ),
]);
