/**
 * `read_interactions` with `kind: "subprocess"`: the processes one session
 * ran (this one by default), most recent first, from its session log.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import {
  processEnding,
  sessionReaderOf,
  type SubprocessLine,
  type SubprocessPage,
} from "../sessions.ts";
import type { ToolContext, ToolResult } from "../tool.ts";

/** The filters of calls that a process page does not take. */
const CALL_FILTERS = ["outcome", "path", "since", "until"] as const;
/** A command is shown up to this many characters in the text. */
const COMMAND_CHARS = 200;

/** What a process page is asked for. */
export interface SubprocessInput {
  /** The session (default: this host's own). */
  session?: string | undefined;
  /** Only processes started by this tool. */
  tool?: string | undefined;
  /** The most to return. */
  limit: number;
  /** A filter of calls: refused here. */
  outcome?: string | undefined;
  /** A filter of calls: refused here. */
  path?: string | undefined;
  /** A filter of calls: refused here. */
  since?: string | undefined;
  /** A filter of calls: refused here. */
  until?: string | undefined;
}

/**
 * A session's process records as a tool result.
 *
 * @param input The session, tool and limit.
 * @param ctx The call's context (its session reader).
 * @returns The result: a line per process, and the records as structured content.
 * @throws {ToolError} `invalid_argument` for a filter of calls or a bad session id,
 *   `not_found` when there is no such session.
 */
export async function subprocessPage(
  input: SubprocessInput,
  ctx: ToolContext,
): Promise<ToolResult> {
  const given = CALL_FILTERS.filter((key) => input[key] !== undefined);
  if (given.length > 0) {
    throw new ToolError(
      "invalid_argument",
      `Cannot filter processes by ${
        given.join(", ")
      }: those filter calls; processes take session, tool and limit`,
    );
  }
  const reader = sessionReaderOf(ctx);
  const query = {
    limit: input.limit,
    ...(input.session === undefined ? {} : { session: input.session }),
    ...(input.tool === undefined ? {} : { tool: input.tool }),
  };
  const page = await reader.subprocesses(query, ctx.signal);
  const lines = [...pageNotes(page, reader.current), ...page.subprocesses.map(row)];
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      session: page.session,
      subprocesses: page.subprocesses as unknown as Record<string, unknown>[],
      matched: page.matched,
      skipped_lines: page.skipped,
      notes: page.notes,
      older_unread: page.older_unread,
    },
  };
}

/** What the page's lines are, and what the log says it left out. */
function pageNotes(page: SubprocessPage, current: string): string[] {
  const count = page.subprocesses.length;
  const which = page.session === current ? "this session" : "session";
  const plural = page.matched === 1 ? "" : "es";
  return [
    `${count} of ${page.matched} process${plural} of ${which} ${page.session}, most recent first`,
    ...(page.older_unread ? ["older processes not read: the session's record file is large"] : []),
    ...(page.skipped > 0 ? [`${page.skipped} unreadable line(s) skipped`] : []),
    ...page.notes,
  ];
}

/** One process as a line: when, tool, how it ended, how long, the command, its kept script. */
function row(each: SubprocessLine): string {
  const command = each.argv.join(" ");
  return [
    each.ts,
    each.tool,
    processEnding(each),
    `${each.duration_ms.toFixed(1)} ms`,
    command.length > COMMAND_CHARS ? `${command.slice(0, COMMAND_CHARS)}…` : command,
    ...(each.script ? [each.script] : []),
  ].join("  ");
}
