/**
 * `move_file`: move or rename inside the roots.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";

/** Move or rename a file or directory. */
export const moveFile = defineTool({
  name: "move_file",
  description:
    "Move or rename a file or directory. The destination's directory must exist; an existing file is replaced only with overwrite: true.",
  input: z.object({
    source: z.string().min(1),
    destination: z.string().min(1),
    overwrite: z.boolean().default(false),
  }),
  annotations: { title: "Move file", destructiveHint: true, idempotentHint: false },
  async run({ source, destination, overwrite }, ctx) {
    const moved = await ctx.fs.move(source, destination, overwrite);
    return `Moved "${moved.source.display}" to "${moved.destination.display}"`;
  },
});
