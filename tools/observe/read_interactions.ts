/**
 * `read_interactions` (seed 003): the host's own interaction log, filtered.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool } from "../tool.ts";
import { observation } from "./_observation.ts";

/** How far back `since` may reach. */
export const MAX_LOOKBACK_DAYS = 7;
/** The most interactions one call returns. */
export const MAX_LIMIT = 200;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Read recent tool calls from the host's interaction log. */
export const readInteractions = defineTool({
  name: "read_interactions",
  description:
    "Read this host's log of tool calls (yours and other sessions'), most recent first: tool, arguments (size-capped, secrets redacted), outcome, duration, result size, paths touched. Filters compose. The default window is today and yesterday (UTC); `since` reaches back at most 7 days. Use it to recall what was done, or to find failing calls.",
  input: z.object({
    tool: z.string().optional().describe("Only calls of this tool"),
    outcome: z.string().optional().describe(
      'Only this outcome: "ok", an error code such as "path_denied", "internal_error", "cancelled"',
    ),
    path: z.string().optional().describe("Only calls that touched a path containing this"),
    session: z.string().optional().describe("Only this session"),
    since: z.string().optional().describe(
      "ISO 8601 time, any UTC offset (e.g. 2026-11-23T09:00:00+12:00)",
    ),
    until: z.string().optional().describe("ISO 8601 time, any UTC offset"),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(10).describe("The most calls to return"),
  }),
  output: z.object({
    interactions: z.array(z.record(z.string(), z.unknown())),
    skipped_lines: z.number(),
    window: z.object({
      since: z.string(),
      until: z.string(),
      days: z.array(z.string()),
      capped: z.boolean(),
    }),
  }),
  annotations: { title: "Read interactions", readOnlyHint: true },
  async run(input, ctx) {
    const obs = observation(ctx);
    const now = obs.now();
    const until = input.until === undefined ? now : parseTime(input.until, "until");
    let since = input.since === undefined
      ? new Date(startOfUtcDay(until) - DAY_MS)
      : parseTime(input.since, "since");
    const earliest = new Date(startOfUtcDay(now) - MAX_LOOKBACK_DAYS * DAY_MS);
    if (until < earliest) {
      throw new ToolError(
        "invalid_argument",
        `Cannot read interactions until "${until.toISOString()}": the log is read back at most ${MAX_LOOKBACK_DAYS} days, to "${earliest.toISOString()}"`,
      );
    }
    const capped = since < earliest;
    if (capped) since = earliest;
    if (since > until) {
      throw new ToolError("invalid_argument", "Cannot read interactions: `since` is after `until`");
    }
    const query: Parameters<typeof obs.query>[0] = { since, until, limit: input.limit };
    for (const key of ["tool", "outcome", "path", "session"] as const) {
      if (input[key] !== undefined) query[key] = input[key];
    }
    const page = await obs.query(query);
    const window = {
      since: since.toISOString(),
      until: until.toISOString(),
      days: page.days,
      capped,
    };
    const lines = page.interactions.map((each) =>
      `${each.ts}  ${each.tool}  ${each.outcome}  ${
        each.duration_ms.toFixed(1)
      } ms  ${each.result_bytes} B  ${each.session}${
        each.paths.length ? `  ${each.paths.slice(0, 3).join(", ")}` : ""
      }`
    );
    const notes = [
      `${page.interactions.length} call${
        page.interactions.length === 1 ? "" : "s"
      } from ${window.since} to ${window.until} (UTC), most recent first`,
      ...(capped
        ? [
          `since was moved to ${window.since}: the log is read back at most ${MAX_LOOKBACK_DAYS} days`,
        ]
        : []),
      ...(page.skipped_lines ? [`${page.skipped_lines} corrupt or torn line(s) skipped`] : []),
    ];
    return {
      content: [{ type: "text", text: [...notes, ...lines].join("\n") }],
      structuredContent: {
        interactions: page.interactions as unknown as Record<string, unknown>[],
        skipped_lines: page.skipped_lines,
        window,
      },
    };
  },
});

function parseTime(value: string, name: string): Date {
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read "${name}": ${JSON.stringify(value)} is not an ISO 8601 time`,
    );
  }
  return new Date(at);
}

function startOfUtcDay(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}
