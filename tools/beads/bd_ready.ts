/**
 * `bd_ready` (seed 001): the beads ready to work on (open, nothing open
 * blocking them), as `bd ready` finds them.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { runBd } from "./_bd.ts";
import { BEAD_SCHEMA, beadList, beadsOf, MAX_BEADS } from "./_beads.ts";

/** List the beads ready to work on. */
export const bdReady = defineTool({
  name: "bd_ready",
  description:
    "List the beads ready to work on: open, with nothing open blocking them, in bd's order. Pick your next task here; set it in_progress with bd_update.",
  input: z.object({}),
  output: z.object({ beads: z.array(BEAD_SCHEMA), truncated: z.boolean() }),
  annotations: { title: "Ready beads", readOnlyHint: true },
  async run(_input, ctx) {
    const args = ["ready", "--json", `--limit=${MAX_BEADS + 1}`];
    const output = await runBd(ctx, { tool: "bd_ready", args });
    const { text, data } = beadList(beadsOf("bd ready", output), "(no beads are ready)");
    return structured(text, data);
  },
});
