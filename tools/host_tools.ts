/**
 * The tools that run in the host's own process (they read host state, never
 * project files): the families in `families.ts` that run in the host.
 *
 * @module
 */

import { loadFamilies } from "./families.ts";
import type { Tool } from "./tool.ts";

const LOADED = await loadFamilies("host");

/** Every host-side tool. */
export const HOST_TOOLS: readonly Tool[] = Object.freeze(LOADED.flatMap(({ tools }) => tools));

/** Each host-side tool's family, by tool name. */
export const HOST_TOOL_FAMILIES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    LOADED.flatMap(({ family, tools }) => tools.map((tool) => [tool.name, family.name])),
  ),
);
