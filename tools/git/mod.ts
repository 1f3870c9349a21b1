/**
 * The git tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { getGitDiff } from "./get_git_diff.ts";
import { gitStatus } from "./git_status.ts";
import { gitLog } from "./git_log.ts";
import { gitShow } from "./git_show.ts";
import { gitBlame } from "./git_blame.ts";

/** Every git tool. */
export const GIT_TOOLS: readonly Tool[] = Object.freeze([
  gitStatus,
  getGitDiff,
  gitLog,
  gitShow,
  gitBlame,
]);
