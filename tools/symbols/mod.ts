/**
 * The symbol tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { findUsages } from "./find_usages.ts";
import { renameSymbol } from "./rename_symbol.ts";

/** Every symbol tool. */
export const SYMBOL_TOOLS: readonly Tool[] = Object.freeze([findUsages, renameSymbol]);

/** The symbol tools' index in the state directory (the host sets untrusted ones aside). */
export { WORD_INDEX_FILE } from "./_word_index.ts";
export { FACTS_DIR } from "./_facts_store.ts";
export { SCOPES_DIR } from "./_scope_saved.ts";
export { ANSWERS_DIR } from "./_answer_store.ts";
export { prepareSymbolIndexes } from "./_prepare.ts";
