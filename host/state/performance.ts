/**
 * Call statistics since start: per-tool counts, errors and latency
 * percentiles, as `get_host_performance` shows them. Latency is the calls'
 * own time: a wait for a human's approval is counted apart (`waited`), and
 * a call the approval refused, which never ran, adds no latency.
 *
 * @module
 */

import type { CallObserver, CallOutcome, CallRecord } from "../../tools/calls.ts";
import type { ToolStats } from "../../tools/observe/observation.ts";

/** Keeps at most this many latencies per tool (the most recent). */
const SAMPLES = 2048;

/** Per-tool call counts, errors and latency percentiles since start. */
export class PerformanceStats implements CallObserver {
  #tools = new Map<
    string,
    { count: number; errors: number; waited: number; max: number; samples: number[]; next: number }
  >();

  /**
   * Count a finished call.
   *
   * @param call The call.
   * @param outcome How it ended.
   */
  after(call: CallRecord, outcome: CallOutcome): void {
    let tool = this.#tools.get(call.tool);
    if (!tool) {
      tool = { count: 0, errors: 0, waited: 0, max: 0, samples: [], next: 0 };
      this.#tools.set(call.tool, tool);
    }
    tool.count++;
    if (outcome.result.isError) tool.errors++;
    if (outcome.waitedMs !== undefined) tool.waited++;
    const refused = outcome.approval !== undefined && outcome.approval.decision !== "approved";
    if (refused) return;
    tool.max = Math.max(tool.max, outcome.durationMs);
    if (tool.samples.length < SAMPLES) tool.samples.push(outcome.durationMs);
    else tool.samples[tool.next++ % SAMPLES] = outcome.durationMs;
  }

  /** The statistics now. */
  snapshot(): Record<string, ToolStats> {
    const out: Record<string, ToolStats> = {};
    for (const [name, tool] of this.#tools) {
      const sorted = [...tool.samples].sort((a, b) => a - b);
      const at = (q: number) =>
        round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      out[name] = {
        count: tool.count,
        errors: tool.errors,
        waited: tool.waited,
        p50_ms: at(0.5),
        p95_ms: at(0.95),
        max_ms: round(tool.max),
      };
    }
    return out;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
