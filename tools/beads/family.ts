/**
 * The Beads tools (seed 001): the project's Beads issues, through the real
 * `bd` program run in the sandbox. They run in the host (which holds the
 * sandbox) and are listed only where the sandbox runs and finds `bd` on its
 * PATH.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The Beads tools' declaration. */
export const BEADS: ToolFamily = defineFamily({
  name: "beads",
  runs: "host",
  icon: ICONS.beads,
  runsPrograms: ["bd"],
  // The workspace check (10 s at most), then bd with a shell command's default time limit.
  callLimitMs: (timeoutS) => 10_000 + timeoutS.default * 1000,
});
