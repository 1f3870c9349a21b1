/**
 * The observation tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { readInteractions } from "./read_interactions.ts";
import { bootstrapBodyState } from "./bootstrap_body_state.ts";
import { getHostPerformance } from "./get_host_performance.ts";

/** Every observation tool. */
export const OBSERVE_TOOLS: readonly Tool[] = Object.freeze([
  readInteractions,
  bootstrapBodyState,
  getHostPerformance,
]);
