/**
 * `bd_list` (seed 001): the beads of the primary root's Beads workspace, as
 * bd lists them by default.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { runBd } from "./_bd.ts";
import { BEAD_SCHEMA, beadList, beadsOf, MAX_BEADS } from "./_beads.ts";

/** List the beads. */
export const bdList = defineTool({
  name: "bd_list",
  description:
    "List the beads (Beads issues) of the project as bd shows them by default: one row per bead with its id, status and title. Use bd_ready for the ones ready to work on.",
  input: z.object({}),
  output: z.object({ beads: z.array(BEAD_SCHEMA), truncated: z.boolean() }),
  annotations: { title: "List beads", readOnlyHint: true },
  async run(_input, ctx) {
    const args = ["list", "--json", `--limit=${MAX_BEADS + 1}`];
    const { text, data } = beadList(
      beadsOf("bd list", await runBd(ctx, { tool: "bd_list", args })),
      "(no beads)",
    );
    return structured(text, data);
  },
});
