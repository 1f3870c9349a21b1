/**
 * The local tools: what the tool workers run, from the families in
 * `families.ts` (the one tool list).
 *
 * @module
 */

import { loadFamilies } from "./families.ts";
import type { Tool } from "./tool.ts";

const LOADED = await loadFamilies("worker");

/** Every local tool, in the order clients list them. */
export const TOOLS: readonly Tool[] = LOADED.tools;

/** Each local tool's family, by tool name. */
export const TOOL_FAMILIES: Readonly<Record<string, string>> = LOADED.families;
