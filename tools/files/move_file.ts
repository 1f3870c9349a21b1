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
    "Move or rename a file or directory inside the roots. The destination's directory must exist; an existing destination file is replaced only with overwrite: true (directories are never replaced). Both paths must be inside the roots. Nothing hidden or protected moves, in either direction: a directory that holds a hidden or protected path, or would put what it holds at one, is refused (path_denied or protected_path); move what is around it instead.",
  input: z.object({
    source: z.string().min(1).describe("The path to move"),
    destination: z.string().min(1).describe("The new path"),
    overwrite: z.boolean().default(false).describe("Replace an existing destination file"),
  }),
  annotations: { title: "Move file", destructiveHint: true, idempotentHint: false },
  async run({ source, destination, overwrite }, ctx) {
    const moved = await ctx.fs.move(source, destination, overwrite);
    return `Moved "${moved.source.display}" to "${moved.destination.display}"`;
  },
});
