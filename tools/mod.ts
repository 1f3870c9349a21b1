/**
 * The list of local tools. A new tool is one file and one line here.
 *
 * @module
 */

import type { Tool } from "./tool.ts";
import { readFile } from "./files/read_file.ts";

/** Every local tool, in the order clients list them. */
export const TOOLS: readonly Tool[] = Object.freeze([
  readFile,
]);
