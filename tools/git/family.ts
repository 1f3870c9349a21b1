/**
 * The git tools: status, diff, log, show and blame of the repositories in
 * the roots. They run `git` in the sandbox, read-only, with every
 * repository setting that would run a program turned off, so they run in
 * the host, where the sandbox is, and are listed only where it runs git.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";

/** The git tools' declaration. */
export const GIT: ToolFamily = defineFamily({
  name: "git",
  runs: "host",
  load: async () => (await import("./mod.ts")).GIT_TOOLS,
  runsPrograms: ["git"],
  marker: ".git",
});
