/**
 * `bd_update(bead_id, status)` (seed 001): a bead's new status, set by
 * `bd update`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured, ToolError } from "../tool.ts";
import { runBd } from "./_bd.ts";
import { BEAD_SCHEMA, beadRow, beadsOf } from "./_beads.ts";

/**
 * A bead id: bd's `<prefix>-<hash>` with `.n` for a child (`bd-a3f8e9.1`);
 * never a leading `-`, so it is never read as an option.
 */
const BEAD_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * A status: bd's built-in ones (open, in_progress, blocked, deferred, closed,
 * pinned, hooked) or a custom one, whose names bd holds to this rule
 * (`statusNameRegexp`, internal/types/types.go); bd checks it is one it knows.
 */
const STATUS = /^[a-z][a-z0-9_-]{0,63}$/;

/** Set a bead's status. */
export const bdUpdate = defineTool({
  name: "bd_update",
  description:
    "Set a bead's status: in_progress when you start it, closed when it is done, open, blocked or deferred otherwise. Returns the bead as bd saved it.",
  input: z.object({
    bead_id: z.string().regex(BEAD_ID, { message: "a bead id looks like bd-a1b2" }).describe(
      "The bead's id, e.g. bd-a1b2",
    ),
    status: z.string().regex(STATUS, { message: "a status is a lower-case name like in_progress" })
      .describe("open, in_progress, blocked, deferred, closed, or custom"),
  }),
  output: z.object({ bead: BEAD_SCHEMA }),
  annotations: { title: "Update bead", destructiveHint: false, idempotentHint: true },
  async run({ bead_id, status }, ctx) {
    const args = ["update", "--json", `--status=${status}`, "--", bead_id];
    const beads = beadsOf("bd update", await runBd(ctx, { tool: "bd_update", args }));
    // bd before 1.0 exits 0 and prints no issue when the id matches none.
    const bead = beads.find((each) => each.id === bead_id) ?? beads[0];
    if (!bead) {
      throw new ToolError("not_found", `Cannot update "${bead_id}": bd found no such bead`);
    }
    return structured(`Updated ${beadRow(bead)}`, { bead });
  },
});
