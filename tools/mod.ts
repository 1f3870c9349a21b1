/**
 * The local tools: what the tool workers run, each family's list imported
 * here (the order is `families.ts`'s, the one tool list).
 *
 * @module
 */

import { toolsOf } from "./families.ts";
import type { Tool } from "./tool.ts";
import { ANALYSIS_TOOLS } from "./analysis/mod.ts";
import { CFAMILY_TOOLS } from "./cfamily/cfamily.ts";
import { FILE_TOOLS } from "./files/mod.ts";
import { PYTHON_TOOLS } from "./python/mod.ts";
import { SYMBOL_TOOLS } from "./symbols/mod.ts";
import { TYPESCRIPT_TOOLS } from "./typescript/typescript.ts";

const LOADED = toolsOf("worker", {
  files: FILE_TOOLS,
  cfamily: CFAMILY_TOOLS,
  typescript: TYPESCRIPT_TOOLS,
  analysis: ANALYSIS_TOOLS,
  python: PYTHON_TOOLS,
  symbols: SYMBOL_TOOLS,
});

/** Every local tool, in the order clients list them. */
export const TOOLS: readonly Tool[] = LOADED.tools;

/** Each local tool's family, by tool name. */
export const TOOL_FAMILIES: Readonly<Record<string, string>> = LOADED.families;
