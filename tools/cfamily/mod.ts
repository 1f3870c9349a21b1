/**
 * The C and C++ family's code: its tools, and C and C++ for the tools that
 * read every language.
 *
 * @module
 */

import type { FamilyCode } from "../family.ts";
import { CFAMILY_TOOLS } from "./cfamily.ts";
import { C_LANGUAGE } from "./_language.ts";

/** The C and C++ tools, and the languages they read. */
export const CFAMILY_CODE: FamilyCode = Object.freeze({
  tools: CFAMILY_TOOLS,
  languages: [C_LANGUAGE],
});
