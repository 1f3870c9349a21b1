/**
 * The analysis tools, in the order clients list them. They read every
 * language the families beside them declare: the process that loads the
 * families hands them those languages (`toolsOf` in `families.ts`).
 *
 * @module
 */

import type { FamilyCode, LanguageReader } from "../family.ts";
import type { Tool } from "../tool.ts";
import { fileSummaryTool } from "./get_file_summary.ts";
import { deriveCodePathTool } from "./derive_code_path.ts";

/**
 * Every analysis tool, reading the languages given.
 *
 * @param languages The languages the families beside them read.
 * @returns The tools.
 */
export function analysisTools(languages: readonly LanguageReader[]): readonly Tool[] {
  return Object.freeze([fileSummaryTool(languages), deriveCodePathTool(languages)]);
}

/** The analysis family's code: tools made from every language the other families read. */
export const ANALYSIS_CODE: FamilyCode = Object.freeze({ tools: analysisTools });
