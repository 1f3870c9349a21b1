/**
 * The tools that run in the host's own process (they read host state, never
 * project files): the families in `families.ts` that run in the host.
 *
 * @module
 */

import { loadFamilies } from "./families.ts";
import type { Tool } from "./tool.ts";

const LOADED = await loadFamilies("host");

/** Every host-side tool, in the order clients list them. */
export const HOST_TOOLS: readonly Tool[] = LOADED.tools;

/** Each host-side tool's family, by tool name. */
export const HOST_TOOL_FAMILIES: Readonly<Record<string, string>> = LOADED.families;
