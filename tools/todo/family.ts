/**
 * The todo tools: the agent's todo list, kept by the host.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";

/** The todo tools' declaration. */
export const TODO: ToolFamily = defineFamily({
  name: "todo",
  runs: "host",
  load: async () => {
    const { todoWrite, todoRead } = await import("./todo.ts");
    return [todoWrite, todoRead];
  },
});
