/**
 * The todo tools: the agent's todo list, kept by the host.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The todo tools' declaration. */
export const TODO: ToolFamily = defineFamily({
  name: "todo",
  runs: "host",
  icon: ICONS.todo,
});
