/**
 * The git tools: status, diff, log, show and blame of the repositories in
 * the roots. They run `git` in the sandbox, read-only, with every
 * repository setting that would run a program turned off, so they run in
 * the host, where the sandbox is, and are listed only where it runs git.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** How long one git program may run. */
export const GIT_TIMEOUT_MS = 30_000;

/**
 * The most git programs one call runs (find the repository from up to three
 * places, its filters, the names a diff shows, the command).
 */
const GIT_RUNS_PER_CALL = 6;

/** The git tools' declaration. */
export const GIT: ToolFamily = defineFamily({
  name: "git",
  runs: "host",
  icon: ICONS.git,
  runsPrograms: ["git"],
  marker: ".git",
  callLimitMs: () => GIT_RUNS_PER_CALL * GIT_TIMEOUT_MS,
});
