/**
 * The workflow bench's tables: per task and in total, side by side, the
 * calls, the characters of text the model got, the wall time (median over
 * the passes), the tools each agent called, and every check that failed.
 *
 * @module
 */

import type { CallCost } from "./_workflow_meter.ts";
import type { WorkflowResult } from "./_workflow_run.ts";
import { TASKS } from "./_workflow_tasks.ts";

/** One pass by one server's agent, with how its server started. */
export interface Pass extends WorkflowResult {
  /** From spawning the server to the answer of `tools/list`, ms. */
  startMs: number;
  /** Tools listed. */
  toolCount: number;
  /** Characters of the `tools/list` answer's tools (JSON). */
  listChars: number;
}

/** The passes of each server, by label. */
export type Passes = ReadonlyMap<string, readonly Pass[]>;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const sum = (costs: readonly CallCost[], field: "text" | "structured" | "sent") =>
  costs.reduce((total, cost) => total + cost[field], 0);

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** A markdown table. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ];
}

/** Calls, text characters and median ms of task i (all tasks when i is -1) over the passes. */
function cell(passes: readonly Pass[], i: number): string[] {
  const pick = (pass: Pass) => (i === -1 ? pass.rows : [pass.rows[i]!]);
  const first = pick(passes[0]!).flatMap((row) => row.costs);
  const ms = median(passes.map((pass) => pick(pass).reduce((total, row) => total + row.ms, 0)));
  const notRun = pick(passes[0]!).some((row) => row.outcome.startsWith("not run"));
  return [`${first.length}${notRun ? "*" : ""}`, fmt(sum(first, "text")), fmt(ms)];
}

/** The tools a task called, with counts (`edit_file ×3`). */
function toolsUsed(costs: readonly CallCost[]): string {
  const counts = new Map<string, number>();
  for (const cost of costs) counts.set(cost.tool, (counts.get(cost.tool) ?? 0) + 1);
  return [...counts].map(([tool, n]) => (n > 1 ? `${tool} ×${n}` : tool)).join(", ") || "—";
}

/** Rows of the side-by-side table, the total last. */
function mainRows(labels: readonly string[], passes: Passes): string[][] {
  const rows = TASKS.map((task, i) => [task, ...labels.flatMap((l) => cell(passes.get(l)!, i))]);
  rows.push([
    "**total**",
    ...labels.flatMap((l) => cell(passes.get(l)!, -1).map((v) => `**${v}**`)),
  ]);
  return rows;
}

/** Rows of the detail table: tools called, structuredContent and argument characters. */
function detailRows(labels: readonly string[], passes: Passes): string[][] {
  return TASKS.map((task, i) => [
    task,
    ...labels.flatMap((label) => {
      const costs = passes.get(label)![0]!.rows[i]!.costs;
      return [toolsUsed(costs), fmt(sum(costs, "structured")), fmt(sum(costs, "sent"))];
    }),
  ]);
}

/** Every outcome that is not `ok`, and whether the package ran, per server. */
function outcomes(labels: readonly string[], passes: Passes): string[] {
  const lines: string[] = [];
  for (const label of labels) {
    const all = passes.get(label)!;
    const bad = all.flatMap((pass, n) =>
      pass.rows.filter((row) => row.outcome !== "ok").map((row) =>
        `pass ${n + 1}, ${row.task}: ${row.outcome}`
      )
    );
    const shape = (pass: Pass) =>
      pass.rows.map((row) => `${row.costs.length}/${sum(row.costs, "text")}`);
    const varied = all.some((pass) => shape(pass).join() !== shape(all[0]!).join());
    if (varied) {
      lines.push(`${label}: calls or characters differ between passes (the table shows pass 1)`);
    }
    const runs = [...new Set(all.map((pass) => pass.runs))];
    lines.push(`${label}: ${bad.length === 0 ? "every task checked ok" : bad.join("\n  ")}`);
    lines.push(`${label}: the package afterwards: ${runs.join(" | ")}`);
    const start = median(all.map((pass) => pass.startMs));
    const first = all[0]!;
    lines.push(
      `${label}: start to tools/list ${fmt(start)} ms (median); ${first.toolCount} tools, ${
        fmt(first.listChars)
      } characters of tool list`,
    );
  }
  return lines;
}

/**
 * The report: the side-by-side table, the detail table and the outcomes.
 *
 * @param passes Each server's passes, by label, in the order to show.
 * @returns Markdown.
 */
export function report(passes: Passes): string {
  const labels = [...passes.keys()];
  const runs = passes.get(labels[0]!)!.length;
  const head = ["task", ...labels.flatMap((l) => [`${l} calls`, `${l} chars`, `${l} ms`])];
  const detailHead = [
    "task",
    ...labels.flatMap((l) => [`${l} tools called`, `${l} structured`, `${l} sent`]),
  ];
  return [
    `chars: characters of text content returned (what the model reads); ms: wall time, median of ${runs} passes; * a tool was missing`,
    "",
    ...table(head, mainRows(labels, passes)),
    "",
    "structured: characters of structuredContent (JSON) also returned; sent: characters of arguments",
    "",
    ...table(detailHead, detailRows(labels, passes)),
    "",
    ...outcomes(labels, passes),
  ].join("\n");
}
