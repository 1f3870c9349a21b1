/**
 * `bootstrap_body_state` (seed 003): one index packet for the start of a session.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { formatTodo, type TodoItem, type TodoStore } from "../todo/todo.ts";
import type { ToolContext } from "../tool.ts";
import { byteSize, droppedPhrase, skippedPhrase } from "./log_phrases.ts";
import {
  type DroppedCalls,
  type LoggedInteraction,
  type LogUsage,
  type Observation,
  observation,
  type SinkStatus,
  type SkippedLines,
} from "./observation.ts";

/** A human's note to the session (the Hook API's `POST /api/session`). */
export interface HumanNote {
  /** When it was left (UTC ISO). */
  readonly ts: string;
  /** What it says. */
  readonly text: string;
  /** The name its writer gave, when one was given. */
  readonly by?: string;
}

/** Where the host keeps the session's notes (given through `ctx.shared("notes")`). */
export interface HumanNotes {
  /** The notes, oldest first. */
  list(): HumanNote[];
}

/** How many touched paths the packet lists. */
export const TOP_PATHS = 10;
/** How many distinct paths are counted at once (past that, the rarest are let go). */
const TRACKED_PATHS = 1000;

/** Summarize the host's state today, as an index (no file contents, no argument bodies). */
export const bootstrapBodyState = defineTool({
  name: "bootstrap_body_state",
  description:
    "A compact index of this host's state to start a session: today's calls by tool and outcome, most-touched paths, open todos, anchors, sinks, roots, policy.",
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
    human_notes: z.array(z.object({
      ts: z.string(),
      text: z.string(),
      by: z.string().optional(),
    })).describe("Notes a human left for this session (through the Hook API), oldest first"),
    anchors: z.array(z.object({ key: z.string(), chars: z.number(), updated_at: z.string() })),
    sinks: z.array(z.record(z.string(), z.unknown())),
    roots: z.array(z.string()),
    policy: z.record(z.string(), z.unknown()),
  }),
  annotations: { title: "Bootstrap", readOnlyHint: true },
  async run(_input, ctx) {
    const obs = observation(ctx);
    const now = obs.now();
    const today = await countToday(obs, now.toISOString().slice(0, 10), ctx);
    const policy = ctx.policy;
    const todos = ctx.shared<TodoStore | undefined>("todos", () => undefined)?.get() ?? [];
    const state = {
      generated_at: now.toISOString(),
      today: today.summary,
      log: obs.log(),
      top_paths: today.topPaths,
      open_todos: todos.map((item, i) => ({ number: i + 1, ...item }))
        .filter((item): item is OpenTodo => item.status !== "completed"),
      human_notes: ctx.shared<HumanNotes | undefined>("notes", () => undefined)?.list() ?? [],
      anchors: obs.anchors(),
      sinks: obs.sinks(),
      roots: [...policy.roots],
      policy: {
        blacklist: [...policy.blacklist],
        limits: { ...policy.limits },
        allow_hardlinks: policy.allowHardlinks,
      },
    };
    return { content: [{ type: "text", text: stateText(state) }], structuredContent: state };
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

/** Today's calls, counted from the log and its drop records. */
async function countToday(obs: Observation, day: string, ctx: ToolContext): Promise<DayCount> {
  const counts = new DayCounts();
  const scan = await obs.scanDay(day, (line) => counts.add(line), {
    signal: ctx.signal,
    onProgress: (read, total) => ctx.progress(read, total, "reading today's interaction log"),
  });
  const { dropped, skipped } = scan;
  for (const [tool, n] of Object.entries(dropped.by_tool)) bump(counts.byTool, tool, n);
  for (const [outcome, n] of Object.entries(dropped.by_outcome)) bump(counts.byOutcome, outcome, n);
  return {
    summary: {
      day,
      total: scan.calls + dropped.calls,
      logged: scan.calls,
      dropped,
      by_tool: counts.byTool,
      by_outcome: counts.byOutcome,
      skipped_lines: skipped.malformed + skipped.too_long,
      skipped,
    },
    topPaths: counts.topPaths(TOP_PATHS),
  };
}

/** Today's counts, and the paths touched most. */
interface DayCount {
  summary: {
    day: string;
    total: number;
    logged: number;
    dropped: DroppedCalls;
    by_tool: Record<string, number>;
    by_outcome: Record<string, number>;
    skipped_lines: number;
    skipped: SkippedLines;
  };
  topPaths: Array<{ path: string; calls: number }>;
}

/** The packet, as the model reads it. */
type State = {
  generated_at: string;
  today: DayCount["summary"];
  log: LogUsage | null;
  top_paths: Array<{ path: string; calls: number }>;
  open_todos: OpenTodo[];
  human_notes: HumanNote[];
  anchors: Array<{ key: string; chars: number; updated_at: string }>;
  sinks: SinkStatus[];
  roots: string[];
};

function stateText(state: State): string {
  const { today, log } = state;
  return [
    `toolhost state at ${state.generated_at}`,
    `today (${today.day} UTC): ${today.total} calls${
      today.dropped.calls > 0 ? ` (${droppedPhrase(today.dropped)})` : ""
    }; ${entries(today.by_tool)}; outcomes: ${entries(today.by_outcome)}`,
    ...[skippedPhrase(today.skipped)].filter((each) => each !== undefined),
    ...(log
      ? [
        `interaction log: ${byteSize(log.bytes)} of ${byteSize(log.max_total_bytes)} (${
          byteSize(log.max_day_bytes)
        } a day)`,
      ]
      : []),
    `top paths: ${
      state.top_paths.map((each) => `${each.path} (${each.calls})`).join(", ") || "none"
    }`,
    `open todos: ${
      state.open_todos.length === 0
        ? "none"
        : `${state.open_todos.length}\n${openTodos(state.open_todos)}`
    }`,
    ...(state.human_notes.length === 0 ? [] : [
      `notes from a human: ${state.human_notes.length}\n${
        state.human_notes.map((note) => `${note.ts}${note.by ? ` ${note.by}` : ""}: ${note.text}`)
          .join("\n")
      }`,
    ]),
    `anchors: ${
      state.anchors.map((each) => `${each.key} (${each.chars} chars, ${each.updated_at})`).join(
        ", ",
      ) ||
      "none"
    }`,
    `sinks: ${
      state.sinks.length === 0
        ? "none"
        : state.sinks.map((each) =>
          `${each.name} (last ok ${
            each.last_success ?? "never"
          }, ${each.drops} dropped, ${each.timeouts} timed out, ${each.failures} failed)`
        ).join(", ")
    }`,
    `roots: ${state.roots.join(", ")}`,
  ].join("\n");
}
