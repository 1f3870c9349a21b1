/**
 * The TypeScript and JavaScript family's code: its tools, and TS/JS for
 * the tools that read every language.
 *
 * @module
 */

import type { FamilyCode } from "../family.ts";
import { TYPESCRIPT_TOOLS } from "./typescript.ts";
import { TYPESCRIPT_LANGUAGE } from "./_language.ts";

/** The TypeScript and JavaScript tools, and the languages they read. */
export const TYPESCRIPT_CODE: FamilyCode = Object.freeze({
  tools: TYPESCRIPT_TOOLS,
  languages: [TYPESCRIPT_LANGUAGE],
});
