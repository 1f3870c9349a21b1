/**
 * `todo_write` and `todo_read`: a todo list kept by the host, pushed to the
 * context anchor `todo_state` (directives, seed 002) on every change.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import type { Directive } from "../directives.ts";
import { defineTool, type ToolContext } from "../tool.ts";

/** One todo item. */
export interface TodoItem {
  /** What to do. */
  content: string;
  /** Where it stands. */
  status: "pending" | "in_progress" | "completed";
}

/** Where the host keeps the list (given through `ctx.shared("todos")`). */
export interface TodoStore {
  /** The list. */
  get(): TodoItem[];
  /**
   * Replace the list.
   *
   * @param items The new list.
   */
  set(items: TodoItem[]): Promise<void>;
}

const ITEM = z.object({
  content: z.string().min(1).max(2000),
  status: z.enum(["pending", "in_progress", "completed"]),
});

function store(ctx: ToolContext): TodoStore {
  return ctx.shared<TodoStore>("todos", () => {
    throw new ToolError("unsupported", "The todo list is kept only in the host's own process");
  });
}

/**
 * The list as text, one item a line.
 *
 * @param items The items.
 * @returns E.g. `[x] done thing` / `[>] current` / `[ ] next`.
 */
export function formatTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return "(no todos)";
  return items.map((item, i) => formatTodo(item, i + 1)).join("\n");
}

/**
 * One item as a line.
 *
 * @param item The item.
 * @param number Its place in the list, from 1.
 * @returns E.g. `[>] 2. current`.
 */
export function formatTodo(item: TodoItem, number: number): string {
  const mark = { completed: "[x]", in_progress: "[>]", pending: "[ ]" } as const;
  return `${mark[item.status]} ${number}. ${item.content}`;
}

/** Replace the todo list. */
export const todoWrite = defineTool({
  name: "todo_write",
  description:
    "Replace the project's shared todo list (at most one item in_progress); kept across restarts.",
  input: z.object({ todos: z.array(ITEM).max(200) }),
  output: z.object({ todos: z.array(ITEM), counts: z.record(z.string(), z.number()) }),
  annotations: { title: "Write todos", destructiveHint: true, idempotentHint: true },
  async run({ todos }, ctx) {
    if (todos.filter((item) => item.status === "in_progress").length > 1) {
      throw new ToolError(
        "invalid_argument",
        "Cannot write todos: more than one item is in_progress",
      );
    }
    await store(ctx).set(todos);
    const formatted = formatTodos(todos);
    const counts = { pending: 0, in_progress: 0, completed: 0 };
    for (const item of todos) counts[item.status]++;
    const directives: Directive[] = [
      { kind: "ContextAnchor", key: "todo_state", content: formatted },
      { kind: "TodoStateChanged", formatted_state: formatted },
    ];
    return {
      content: [{ type: "text", text: formatted }],
      structuredContent: { todos, counts },
      directives,
    };
  },
});

/** Read the todo list. */
export const todoRead = defineTool({
  name: "todo_read",
  description: "Read the project's shared todo list, as todo_write left it.",
  input: z.object({}),
  output: z.object({ todos: z.array(ITEM) }),
  annotations: { title: "Read todos", readOnlyHint: true },
  run(_input, ctx) {
    const todos = store(ctx).get();
    return { content: [{ type: "text", text: formatTodos(todos) }], structuredContent: { todos } };
  },
});
