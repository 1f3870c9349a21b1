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
