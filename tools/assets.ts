/**
 * Files outside the roots that tool code reads: the tree-sitter runtime, and
 * the grammars and other files the families declare. The tool worker gets
 * read permission for exactly these paths, and `deno task compile` includes
 * them. Kept apart from `mod.ts` so the host can name them without loading
 * any tool.
 *
 * @module
 */

import { RUNTIME_WASM } from "./family.ts";
import { FAMILIES } from "./families.ts";
import { DECLARED_GRAMMARS } from "./grammars.ts";

/**
 * Every file (or folder) tool code reads outside the roots: the tree-sitter
 * runtime, each grammar a family declares, and the other files the
 * families declare (the TypeScript compiler's), each once.
 */
export const TOOL_ASSETS: readonly URL[] = Object.freeze(
  [
    RUNTIME_WASM,
    ...DECLARED_GRAMMARS.map((grammar) => grammar.wasm),
    ...FAMILIES.flatMap((family) => family.assets ?? []),
  ].filter((url, i, all) => all.findIndex((each) => each.href === url.href) === i),
);

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
