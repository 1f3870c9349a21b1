/**
 * Files outside the roots that tool code reads (grammar `.wasm` files and the
 * like). The tool worker gets read permission for exactly these paths, and
 * `deno task compile` must `--include` them. Kept apart from `mod.ts` so the
 * host can name them without loading every tool.
 *
 * @module
 */

/** The files, as URLs resolved against this module. */
export const TOOL_ASSETS: readonly URL[] = Object.freeze([]);
