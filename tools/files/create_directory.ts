/**
 * `create_directory`: make a directory and its missing parents.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";

/** Create a directory. */
export const createDirectory = defineTool({
  name: "create_directory",
  description: "Create a directory and any missing parents; succeeds when it already exists.",
  input: z.object({ path: z.string().min(1) }),
  annotations: { title: "Create directory", destructiveHint: false, idempotentHint: true },
  async run({ path }, ctx) {
    const { resolved, existed } = await ctx.fs.mkdir(path, true);
    return existed ? `"${resolved.display}" already exists` : `Created "${resolved.display}"`;
  },
});
