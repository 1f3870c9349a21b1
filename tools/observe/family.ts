/**
 * The observation tools: the host's own log, statistics, anchors and sinks.
 * They run in the host's process and are never mirrored (a peer would see
 * its own copies again).
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The observation tools' declaration. */
export const OBSERVE: ToolFamily = defineFamily({
  name: "observe",
  runs: "host",
  icon: ICONS.observe,
  mirrored: false,
});
