/**
 * The shell: `run_shell` runs a command in the sandbox (`tools/sandbox.ts`),
 * confined by the kernel. It runs in the host's process, which starts the
 * sandbox; it is listed only where the sandbox runs programs.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The shell's declaration. */
export const SHELL: ToolFamily = defineFamily({
  name: "shell",
  runs: "host",
  icon: ICONS.shell,
  runsPrograms: [],
  // A command may ask for up to the longest time limit.
  callLimitMs: (timeoutS) => timeoutS.max * 1000,
});
