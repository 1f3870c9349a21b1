/**
 * The Beads tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { bdList } from "./bd_list.ts";
import { bdReady } from "./bd_ready.ts";
import { bdCreate } from "./bd_create.ts";
import { bdUpdate } from "./bd_update.ts";

/** Every Beads tool. */
export const BEADS_TOOLS: readonly Tool[] = Object.freeze([bdList, bdReady, bdCreate, bdUpdate]);
