/**
 * `bootstrap_body_state` (seed 003): one index packet for the start of a session.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { formatTodo, type TodoItem, type TodoStore } from "../todo/todo.ts";
import { observation } from "./_observation.ts";

/** How many touched paths the packet lists. */
export const TOP_PATHS = 10;

/** Summarize the host's state today, as an index (no file contents, no argument bodies). */
export const bootstrapBodyState = defineTool({
  name: "bootstrap_body_state",
  description:
    "Start a session here: one compact index of this host's state — today's tool calls (total, by tool, by outcome), the paths touched most today, every open todo item (pending or in progress, with its text), open context anchors, efferent-copy sinks and their freshness, the roots and the policy. It carries no file contents and no argument bodies; follow up with read_interactions, todo_read or the file tools.",
  input: z.object({}),
  output: z.object({
    generated_at: z.string(),
    today: z.object({
      day: z.string(),
      total: z.number(),
      by_tool: z.record(z.string(), z.number()),
      by_outcome: z.record(z.string(), z.number()),
      skipped_lines: z.number(),
    }),
    top_paths: z.array(z.object({ path: z.string(), calls: z.number() })),
    open_todos: z.array(z.object({
      number: z.number().describe("Its place in the todo list, from 1"),
      content: z.string(),
      status: z.enum(["pending", "in_progress"]),
    })).describe("Every todo item not completed"),
    anchors: z.array(z.object({ key: z.string(), chars: z.number(), updated_at: z.string() })),
    sinks: z.array(z.record(z.string(), z.unknown())),
    roots: z.array(z.string()),
    policy: z.record(z.string(), z.unknown()),
  }),
  annotations: { title: "Bootstrap", readOnlyHint: true },
  async run(_input, ctx) {
    const obs = observation(ctx);
    const now = obs.now();
    const day = now.toISOString().slice(0, 10);
    const { lines, skipped } = await obs.day(day);
    const byTool: Record<string, number> = {};
    const byOutcome: Record<string, number> = {};
    const byPath = new Map<string, number>();
    for (const line of lines) {
      byTool[line.tool] = (byTool[line.tool] ?? 0) + 1;
      byOutcome[line.outcome] = (byOutcome[line.outcome] ?? 0) + 1;
      for (const path of new Set(line.paths)) byPath.set(path, (byPath.get(path) ?? 0) + 1);
    }
    const topPaths = [...byPath].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(
      0,
      TOP_PATHS,
    )
      .map(([path, calls]) => ({ path, calls }));
    const policy = ctx.policy;
    const todos = ctx.shared<TodoStore | undefined>("todos", () => undefined)?.get() ?? [];
    const open = todos.map((item, i) => ({ number: i + 1, ...item }))
      .filter((item): item is OpenTodo => item.status !== "completed");
    const state = {
      generated_at: now.toISOString(),
      today: {
        day,
        total: lines.length,
        by_tool: byTool,
        by_outcome: byOutcome,
        skipped_lines: skipped,
      },
      top_paths: topPaths,
      open_todos: open,
      anchors: obs.anchors(),
      sinks: obs.sinks() as unknown as Record<string, unknown>[],
      roots: [...policy.roots],
      policy: {
        blacklist: [...policy.blacklist],
        limits: { ...policy.limits },
        allow_hardlinks: policy.allowHardlinks,
      },
    };
    const text = [
      `toolhost state at ${state.generated_at}`,
      `today (${day} UTC): ${lines.length} calls; ${entries(byTool)}; outcomes: ${
        entries(byOutcome)
      }`,
      `top paths: ${topPaths.map((each) => `${each.path} (${each.calls})`).join(", ") || "none"}`,
      `open todos: ${open.length === 0 ? "none" : `${open.length}\n${openTodos(open)}`}`,
      `anchors: ${
        state.anchors.map((each) => `${each.key} (${each.chars} chars, ${each.updated_at})`).join(
          ", ",
        ) || "none"
      }`,
      `sinks: ${
        state.sinks.length === 0
          ? "none"
          : obs.sinks().map((each) =>
            `${each.name} (last ok ${
              each.last_success ?? "never"
            }, ${each.drops} dropped, ${each.failures} failed)`
          ).join(", ")
      }`,
      `roots: ${state.roots.join(", ")}`,
    ].join("\n");
    return { content: [{ type: "text", text }], structuredContent: state };
  },
});

function entries(counts: Record<string, number>): string {
  const list = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return list.length === 0 ? "none" : list.map(([key, n]) => `${key} ${n}`).join(", ");
}

/** A todo item not completed, with its place in the list. */
type OpenTodo = TodoItem & { number: number; status: "pending" | "in_progress" };

/** The open items as `todo_read` shows them, each with its place in the whole list. */
function openTodos(open: readonly OpenTodo[]): string {
  return open.map((item) => formatTodo(item, item.number)).join("\n");
}
