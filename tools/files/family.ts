/**
 * The file tools: read, slice, edit, write, move and search files in the roots.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The file tools' declaration. */
export const FILES: ToolFamily = defineFamily({
  name: "files",
  runs: "worker",
  icon: ICONS.files,
  pathArgs: ["path", "source", "destination"],
});
