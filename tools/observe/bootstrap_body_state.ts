/**
 * `bootstrap_body_state` (seed 003): one index packet for the start of a session.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { formatTodo, type TodoItem, type TodoStore } from "../todo/todo.ts";
import {
  byteSize,
  droppedPhrase,
  type LoggedInteraction,
  observation,
  skippedPhrase,
} from "./_observation.ts";

/** How many touched paths the packet lists. */
export const TOP_PATHS = 10;
/** How many distinct paths are counted at once (past that, the rarest are let go). */
const TRACKED_PATHS = 1000;

/** Summarize the host's state today, as an index (no file contents, no argument bodies). */
export const bootstrapBodyState = defineTool({
  name: "bootstrap_body_state",
  description:
    "Start a session here: one compact index of this host's state — today's tool calls (total, by tool, by outcome, and how many the log's size cap dropped), the paths touched most today, every open todo item (pending or in progress, with its text), open context anchors, efferent-copy sinks and their freshness, the roots and the policy. It carries no file contents and no argument bodies; follow up with read_interactions, todo_read or the file tools.",
  input: z.object({}),
  output: z.object({
    generated_at: z.string(),
    today: z.object({
      day: z.string(),
      total: z.number().describe("Calls today, those the log's cap dropped included"),
      logged: z.number().describe("Of which still in the log"),
      dropped: z.record(z.string(), z.unknown()).describe(
        "Of which dropped by the log's size cap: how many, of which kinds, why",
      ),
      by_tool: z.record(z.string(), z.number()),
      by_outcome: z.record(z.string(), z.number()),
      skipped_lines: z.number(),
      skipped: z.object({ malformed: z.number(), too_long: z.number(), unreadable: z.number() }),
    }),
    log: z.object({
      bytes: z.number(),
      max_day_bytes: z.number(),
      max_total_bytes: z.number(),
    }).nullable().describe("The interaction log's size and caps; null when it is off"),
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
    const counts = new DayCounts();
    const scan = await obs.scanDay(day, (line) => counts.add(line), {
      signal: ctx.signal,
      onProgress: (read, total) => ctx.progress(read, total, "reading today's interaction log"),
    });
    const { dropped, skipped } = scan;
    for (const [tool, n] of Object.entries(dropped.by_tool)) bump(counts.byTool, tool, n);
    for (const [outcome, n] of Object.entries(dropped.by_outcome)) {
      bump(counts.byOutcome, outcome, n);
    }
    const byTool = counts.byTool;
    const byOutcome = counts.byOutcome;
    const total = scan.calls + dropped.calls;
    const topPaths = counts.topPaths(TOP_PATHS);
    const log = obs.log();
    const policy = ctx.policy;
    const todos = ctx.shared<TodoStore | undefined>("todos", () => undefined)?.get() ?? [];
    const open = todos.map((item, i) => ({ number: i + 1, ...item }))
      .filter((item): item is OpenTodo => item.status !== "completed");
    const state = {
      generated_at: now.toISOString(),
      today: {
        day,
        total,
        logged: scan.calls,
        dropped: dropped as unknown as Record<string, unknown>,
        by_tool: byTool,
        by_outcome: byOutcome,
        skipped_lines: skipped.malformed + skipped.too_long,
        skipped,
      },
      log,
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
      `today (${day} UTC): ${total} calls${
        dropped.calls > 0 ? ` (${droppedPhrase(dropped)})` : ""
      }; ${entries(byTool)}; outcomes: ${entries(byOutcome)}`,
      ...[skippedPhrase(skipped)].filter((each) => each !== undefined),
      ...(log
        ? [
          `interaction log: ${byteSize(log.bytes)} of ${byteSize(log.max_total_bytes)} (${
            byteSize(log.max_day_bytes)
          } a day)`,
        ]
        : []),
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

/** Today's counts by tool, outcome and path, in bounded memory. */
class DayCounts {
  byTool: Record<string, number> = {};
  byOutcome: Record<string, number> = {};
  #paths = new Map<string, number>();

  add(line: LoggedInteraction): void {
    bump(this.byTool, line.tool, 1);
    bump(this.byOutcome, line.outcome, 1);
    for (const path of new Set(line.paths)) this.#paths.set(path, (this.#paths.get(path) ?? 0) + 1);
    // Past the bound, keep the most touched half: the top few are what is shown.
    if (this.#paths.size > 2 * TRACKED_PATHS) {
      this.#paths = new Map([...this.#paths].sort((a, b) => b[1] - a[1]).slice(0, TRACKED_PATHS));
    }
  }

  topPaths(count: number): Array<{ path: string; calls: number }> {
    return [...this.#paths].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count)
      .map(([path, calls]) => ({ path, calls }));
  }
}

/** Add to a count (any name: a hand-made line may name a tool `__proto__`). */
function bump(counts: Record<string, number>, key: string, by: number): void {
  const value = (Object.hasOwn(counts, key) ? counts[key]! : 0) + by;
  Object.defineProperty(counts, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

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
