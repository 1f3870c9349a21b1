/**
 * `bd_create(title, description)` (seed 001): a new bead, made by `bd create`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured, ToolError } from "../tool.ts";
import { runBd } from "./_bd.ts";
import { BEAD_SCHEMA, beadOf, beadRow } from "./_beads.ts";

/** bd's own limit on a title (`types.Issue.Validate`, internal/types/types.go). */
const MAX_TITLE_CHARS = 500;

/** A bound of ours on a description, which bd passes on as one argument. */
const MAX_DESCRIPTION_CHARS = 32_768;

/** Create a bead. */
export const bdCreate = defineTool({
  name: "bd_create",
  description:
    "Create a bead (a Beads issue) with a title and an optional description; returns its new id. Track work you find or plan here instead of in comments.",
  input: z.object({
    title: z.string().min(1).max(MAX_TITLE_CHARS).regex(/^[^\r\n\0]*\S[^\r\n\0]*$/, {
      message: "a title is one line, not blank",
    }),
    description: z.string().max(MAX_DESCRIPTION_CHARS).regex(/^[^\0]*$/, {
      message: "a description holds no NUL character",
    }).optional().describe("What to do, in a few lines"),
  }),
  output: z.object({ bead: BEAD_SCHEMA }),
  annotations: { title: "Create bead", destructiveHint: false },
  async run({ title, description }, ctx) {
    // bd reads the description from standard input when it is "-" (getDescriptionFlag).
    if (description?.trim() === "-") {
      throw new ToolError(
        "invalid_argument",
        `Cannot create a bead: the description "-" is not text`,
      );
    }
    const args = [
      "create",
      "--json",
      ...(description ? [`--description=${description}`] : []),
      "--",
      title,
    ];
    const output = await runBd(ctx, { tool: "bd_create", args });
    // bd prints the issue it made; some versions print it in an array of one.
    const bead = beadOf(Array.isArray(output) ? output[0] : output);
    if (!bead) throw new ToolError("upstream_error", "bd create printed no bead");
    return structured(`Created ${beadRow(bead)}`, { bead });
  },
});
