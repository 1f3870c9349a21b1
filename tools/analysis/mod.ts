/**
 * The analysis tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { getFileSummary } from "./get_file_summary.ts";
import { deriveCodePath } from "./derive_code_path.ts";

/** Every analysis tool. */
export const ANALYSIS_TOOLS: readonly Tool[] = Object.freeze([getFileSummary, deriveCodePath]);
