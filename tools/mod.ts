/**
 * The local tools: what the tool workers run, each family's list (or code,
 * with the languages it reads) imported here (the order is `families.ts`'s,
 * the one tool list).
 *
 * @module
 */

import { toolsOf } from "./families.ts";
import type { Tool } from "./tool.ts";
import { ANALYSIS_CODE } from "./analysis/mod.ts";
import { CFAMILY_CODE } from "./cfamily/mod.ts";
import { FILE_TOOLS } from "./files/mod.ts";
import { PYTHON_CODE } from "./python/mod.ts";
import { SYMBOL_TOOLS } from "./symbols/mod.ts";
import { TYPESCRIPT_CODE } from "./typescript/mod.ts";

const LOADED = toolsOf("worker", {
  files: FILE_TOOLS,
  cfamily: CFAMILY_CODE,
  typescript: TYPESCRIPT_CODE,
  analysis: ANALYSIS_CODE,
  python: PYTHON_CODE,
  symbols: SYMBOL_TOOLS,
});

/** Every local tool, in the order clients list them. */
export const TOOLS: readonly Tool[] = LOADED.tools;

/** Each local tool's family, by tool name. */
export const TOOL_FAMILIES: Readonly<Record<string, string>> = LOADED.families;
