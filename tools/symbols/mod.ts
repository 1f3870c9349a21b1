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
export { ANSWERS_DIR, FACTS_DIR, SCOPES_DIR, WORD_INDEX_FILE } from "./state_names.ts";
export { prepareSymbolIndexes } from "./_prepare.ts";
