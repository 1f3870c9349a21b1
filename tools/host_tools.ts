/**
 * The tools that run in the host's own process (they read host state, never
 * project files): observation and the todo list. A new one is one file and
 * one line here.
 *
 * @module
 */

import type { Tool } from "./tool.ts";
import { readInteractions } from "./observe/read_interactions.ts";
import { bootstrapBodyState } from "./observe/bootstrap_body_state.ts";
import { getHostPerformance } from "./observe/get_host_performance.ts";
import { todoRead, todoWrite } from "./todo/todo.ts";

/** Every host-side tool. */
export const HOST_TOOLS: readonly Tool[] = Object.freeze([
  readInteractions,
  bootstrapBodyState,
  getHostPerformance,
  todoWrite,
  todoRead,
]);
