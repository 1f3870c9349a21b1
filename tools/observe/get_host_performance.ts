/**
 * `get_host_performance` (seed 001's `get_ui_performance`, for a host).
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { byteSize } from "./log_phrases.ts";
import { type HostStatus, type Observation, observation, type ToolStats } from "./observation.ts";
import { statusParts } from "./status_phrases.ts";
import type { LogUsage } from "../interactions.ts";

/** Per-tool latency, error rate, memory and sink drops since the host started. */
export const getHostPerformance = defineTool({
  name: "get_host_performance",
  description:
    "Per-tool calls, latency and error rate since start, memory, log size, and what is in effect (Landlock, ripgrep, sandbox, network, sinks, upstreams) or why not.",
  input: z.object({}),
  output: z.object({
    since: z.string(),
    tools: z.record(
      z.string(),
      z.object({
        count: z.number(),
        errors: z.number(),
        error_rate: z.number(),
        waited: z.number().describe(
          "Calls that waited for a human's approval; that wait is not in the latency",
        ),
        p50_ms: z.number(),
        p95_ms: z.number(),
        max_ms: z.number(),
      }),
    ),
    memory: z.object({
      rss_bytes: z.number(),
      heap_used_bytes: z.number(),
      heap_total_bytes: z.number(),
    }),
    log: z.object({
      bytes: z.number(),
      max_day_bytes: z.number(),
      max_total_bytes: z.number(),
    }).nullable().describe("The interaction log's size and caps; null when it is off"),
    sink_drops: z.number(),
    status: z.object({
      launch: z.record(z.string(), z.unknown()),
      landlock: z.record(z.string(), z.unknown()),
      ripgrep: z.record(z.string(), z.unknown()),
      sandbox: z.record(z.string(), z.unknown()),
      network: z.record(z.string(), z.unknown()),
      efferent_copy: z.record(z.string(), z.unknown()),
      upstreams: z.array(z.record(z.string(), z.unknown())),
      workers: z.object({ restarts: z.number() }),
      telemetry: z.record(z.string(), z.unknown()),
      warnings: z.array(z.string()),
    }).describe("What is in effect and what is not, with why"),
  }),
  annotations: { title: "Host performance", readOnlyHint: true },
  run(_input, ctx) {
    const data = performanceData(observation(ctx));
    const { tools, status } = data;
    const memory = { rss: data.memory.rss_bytes, heapUsed: data.memory.heap_used_bytes };
    const rows = Object.entries(tools).sort((a, b) => b[1].count - a[1].count).map(([name, s]) =>
      `${name.padEnd(24)} ${String(s.count).padStart(6)} calls  p50 ${
        s.p50_ms.toFixed(1)
      } ms  p95 ${s.p95_ms.toFixed(1)} ms  max ${s.max_ms.toFixed(1)} ms  errors ${
        (s.error_rate * 100).toFixed(1)
      }%${s.waited > 0 ? `  ${s.waited} waited for approval (not in the latency)` : ""}`
    );
    const text = [
      `since ${data.since}; memory rss ${(memory.rss / 1048576).toFixed(1)} MB, heap ${
        (memory.heapUsed / 1048576).toFixed(1)
      } MB; sink drops ${data.sink_drops}${
        data.log
          ? `; interaction log ${byteSize(data.log.bytes)} of ${
            byteSize(data.log.max_total_bytes)
          } (${byteSize(data.log.max_day_bytes)} a day)`
          : ""
      }`,
      ...statusParts(status),
      ...rows,
    ].join("\n");
    return { content: [{ type: "text", text }], structuredContent: data };
  },
});

/** What `get_host_performance` reports, as data. */
export type HostPerformance = {
  /** When the host started. */
  since: string;
  /** Per tool: calls, errors, error rate, latency. */
  tools: Record<string, ToolStats & { error_rate: number }>;
  /** The process's memory. */
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number };
  /** The interaction log's size and caps, or null when it is off. */
  log: LogUsage | null;
  /** Calls the sinks dropped. */
  sink_drops: number;
  /** What is in effect, and what not with why. */
  status: HostStatus;
};

/**
 * What `get_host_performance` reports, as data (the Hook API's
 * `/api/performance` gives the same).
 *
 * @param obs The host's observation service.
 * @returns Per-tool latency and errors, memory, log size, sink drops, status.
 */
export function performanceData(obs: Observation): HostPerformance {
  const stats = obs.stats();
  const tools = Object.fromEntries(
    Object.entries(stats).map((
      [name, s],
    ) => [name, { ...s, error_rate: s.count ? s.errors / s.count : 0 }]),
  );
  const memory = Deno.memoryUsage();
  return {
    since: obs.startedAt.toISOString(),
    tools,
    memory: {
      rss_bytes: memory.rss,
      heap_used_bytes: memory.heapUsed,
      heap_total_bytes: memory.heapTotal,
    },
    log: obs.log(),
    sink_drops: obs.sinks().reduce((sum, sink) => sum + sink.drops, 0),
    status: obs.status(),
  };
}
