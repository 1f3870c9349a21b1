/**
 * The analysis tools: summaries of any file and call paths across the
 * languages the other families parse.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The analysis tools' declaration. */
export const ANALYSIS: ToolFamily = defineFamily({
  name: "analysis",
  runs: "worker",
  icon: ICONS.analysis,
  prefersCodeWorker: true,
  pathArgs: ["path"],
});
