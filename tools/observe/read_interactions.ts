/**
 * `read_interactions` (seed 003): the host's own interaction log, filtered;
 * with `kind: "subprocess"`, the processes a session ran, from its session
 * log (`_subprocess_page.ts`).
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool } from "../tool.ts";
import { droppedPhrase, skippedPhrase } from "./log_phrases.ts";
import { type InteractionPage, observation } from "./observation.ts";
import { subprocessPage } from "./_subprocess_page.ts";
import { durationPhrase } from "../interactions.ts";

/** How far back `since` may reach. */
export const MAX_LOOKBACK_DAYS = 7;
/** The most interactions one call returns. */
export const MAX_LIMIT = 200;
/** The most log one call reads (days, newest first, while they fit; at least one). */
export const MAX_SCAN_BYTES = 256 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How far after now a time may lie (clocks differ a little; nothing is logged in the future). */
const MAX_AHEAD_MS = DAY_MS;

/** Read recent tool calls from the host's interaction log. */
export const readInteractions = defineTool({
  name: "read_interactions",
  description:
    "This host's log of tool calls (all sessions), newest first: arguments, outcome, duration, paths; today and yesterday by default, 7 days at most. Recall what was done or find failures.",
  input: z.object({
    kind: z.literal("subprocess").optional().describe("Processes a session ran, not calls"),
    tool: z.string().max(256).optional(),
    outcome: z.string().max(64).optional().describe('"ok" or an error code ("path_denied")'),
    path: z.string().max(4096).optional().describe("Part of a call's path"),
    session: z.string().max(256).optional(),
    since: z.string().max(64).optional().describe("ISO 8601 time"),
    until: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(10),
  }),
  output: z.object({
    interactions: z.array(z.record(z.string(), z.unknown())).optional(),
    skipped_lines: z.number(),
    skipped: z.object({ malformed: z.number(), too_long: z.number(), unreadable: z.number() })
      .optional().describe("Lines skipped while reading, by why; unreadable counts log files"),
    dropped: z.record(z.string(), z.unknown()).optional().describe(
      "Calls of the days read that the log's size cap dropped (counted, not listed)",
    ),
    window: z.object({
      since: z.string(),
      until: z.string(),
      days: z.array(z.string()),
      capped: z.boolean(),
      unread_days: z.array(z.string()).describe("Days of the window not read: over the budget"),
    }).optional(),
    session: z.string().optional().describe("kind subprocess: the session read"),
    subprocesses: z.array(z.record(z.string(), z.unknown())).optional(),
    matched: z.number().optional(),
    notes: z.array(z.string()).optional(),
    older_unread: z.boolean().optional(),
  }),
  annotations: { title: "Read interactions", readOnlyHint: true },
  async run(input, ctx) {
    if (input.kind === "subprocess") return await subprocessPage(input, ctx);
    const obs = observation(ctx);
    const now = obs.now();
    const until = input.until === undefined ? now : parseTime(input.until, "until", now);
    let since = input.since === undefined
      ? new Date(startOfUtcDay(until) - DAY_MS)
      : parseTime(input.since, "since", now);
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
    const page = await obs.query(query, {
      signal: ctx.signal,
      onProgress: (read, total) => ctx.progress(read, total, "reading the interaction log"),
      maxScanBytes: MAX_SCAN_BYTES,
    });
    const window = {
      since: since.toISOString(),
      until: until.toISOString(),
      days: page.days,
      capped,
      unread_days: page.unread_days,
    };
    const lines = page.interactions.map((each) =>
      `${each.ts}  ${each.tool}  ${each.outcome}  ${
        durationPhrase(each)
      }  ${each.result_bytes} B  ${each.session}${
        each.paths.length ? `  ${each.paths.slice(0, 3).join(", ")}` : ""
      }`
    );
    const notes = pageNotes(page, window);
    return {
      content: [{ type: "text", text: [...notes, ...lines].join("\n") }],
      structuredContent: {
        interactions: page.interactions as unknown as Record<string, unknown>[],
        skipped_lines: page.skipped_lines,
        skipped: page.skipped,
        dropped: page.dropped as unknown as Record<string, unknown>,
        window,
      },
    };
  },
});

/** What the page's lines are, and what was capped, dropped, left unread or skipped. */
function pageNotes(
  page: InteractionPage,
  window: { since: string; until: string; capped: boolean },
): string[] {
  const count = page.interactions.length;
  return [
    `${count} call${
      count === 1 ? "" : "s"
    } from ${window.since} to ${window.until} (UTC), most recent first`,
    ...(window.capped
      ? [
        `since was moved to ${window.since}: the log is read back at most ${MAX_LOOKBACK_DAYS} days`,
      ]
      : []),
    ...(page.dropped.calls > 0
      ? [`in the days read, ${droppedPhrase(page.dropped)} (counted, not listed)`]
      : []),
    ...(page.unread_days.length > 0
      ? [
        `not read (over the ${MAX_SCAN_BYTES / 1048576} MiB a call reads): ${
          page.unread_days.join(", ")
        }; narrow since/until to read them`,
      ]
      : []),
    ...[skippedPhrase(page.skipped)].filter((each) => each !== undefined),
  ];
}

/** A time argument, refused when it is no time or lies more than a day after now. */
function parseTime(value: string, name: string, now: Date): Date {
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read "${name}": ${JSON.stringify(value)} is not an ISO 8601 time`,
    );
  }
  const latest = now.getTime() + MAX_AHEAD_MS;
  if (at > latest) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read interactions ${name} "${
        new Date(at).toISOString()
      }": it lies more than a day after now ("${now.toISOString()}"), and nothing is logged ahead of time`,
    );
  }
  return new Date(at);
}

function startOfUtcDay(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}
