/**
 * The tools that run in the host's own process (they read host state, never
 * project files), each family's list imported here (the order is
 * `families.ts`'s, the one tool list).
 *
 * @module
 */

import { toolsOf } from "./families.ts";
import type { Tool } from "./tool.ts";
import { BEADS_TOOLS } from "./beads/mod.ts";
import { GIT_TOOLS } from "./git/mod.ts";
import { OBSERVE_TOOLS } from "./observe/mod.ts";
import { runShell } from "./shell/run_shell.ts";
import { todoRead, todoWrite } from "./todo/todo.ts";
import { fetchUrl } from "./web/fetch_url.ts";
import { webSearch } from "./web/web_search.ts";

const LOADED = toolsOf("host", {
  observe: OBSERVE_TOOLS,
  todo: [todoWrite, todoRead],
  shell: [runShell],
  git: GIT_TOOLS,
  beads: BEADS_TOOLS,
  web: [fetchUrl, webSearch],
});

/** Every host-side tool, in the order clients list them. */
export const HOST_TOOLS: readonly Tool[] = LOADED.tools;

/** Each host-side tool's family, by tool name. */
export const HOST_TOOL_FAMILIES: Readonly<Record<string, string>> = LOADED.families;
