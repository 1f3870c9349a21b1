/**
 * Beads as the tools show them: read from bd's `--json` output and rendered
 * as seed 001's rows, `ID: <id>, Status: <status>, Title: <title>`.
 *
 * bd prints an issue as its `types.Issue` (internal/types/types.go: `id`,
 * `title`, `status` with omitempty, `priority`, `issue_type`, …); `list` and
 * `ready` print an array of `IssueWithCounts`, the same fields flattened plus
 * `dependency_count`, `dependent_count`, `comment_count` (cmd/bd/list.go,
 * cmd/bd/ready.go); `create` prints one issue (cmd/bd/create.go) and
 * `update` an array of the issues it changed (cmd/bd/update.go).
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../tool.ts";

/** The most beads a list shows (bd is asked for one more, to tell whether there are more). */
export const MAX_BEADS = 100;

/** The most characters of a title a row shows. */
const MAX_TITLE_CHARS = 300;

/** A bead as the tools return it. */
export interface Bead {
  /** Its id (`bd-a1b2`). */
  id: string;
  /** Its status (`open`, `in_progress`, `closed`, …). */
  status: string;
  /** Its title. */
  title: string;
  /** Its priority, 0 (highest) to 4, when bd gave one. */
  priority?: number;
  /** Its type (`task`, `bug`, …), when bd gave one. */
  issue_type?: string;
}

/** The schema of {@linkcode Bead}, for the tools' output schemas. */
export const BEAD_SCHEMA = z.object({
  id: z.string(),
  status: z.string(),
  title: z.string(),
  priority: z.number().optional(),
  issue_type: z.string().optional(),
});

/**
 * A bead from one issue object of bd's JSON.
 *
 * @param value One element of bd's output.
 * @returns The bead, or `undefined` when it has no string `id` and `title`.
 */
export function beadOf(value: unknown): Bead | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const issue = value as Record<string, unknown>;
  if (typeof issue.id !== "string" || typeof issue.title !== "string") return undefined;
  // bd leaves `status` out when empty (omitempty), and reads an empty status as open.
  const bead: Bead = {
    id: issue.id,
    status: typeof issue.status === "string" && issue.status !== "" ? issue.status : "open",
    title: issue.title,
  };
  if (typeof issue.priority === "number") bead.priority = issue.priority;
  if (typeof issue.issue_type === "string") bead.issue_type = issue.issue_type;
  return bead;
}

/**
 * The beads of bd's array output.
 *
 * @param command The bd command that printed it, for the error.
 * @param value bd's parsed output (null: none).
 * @returns The beads, in bd's order.
 * @throws {ToolError} `upstream_error` when it is not an array of issues.
 */
export function beadsOf(command: string, value: unknown): Bead[] {
  // Go prints an empty (nil) list as null, as bd 0.x does for no issues.
  if (value === null) return [];
  if (!Array.isArray(value)) {
    throw new ToolError("upstream_error", `${command} printed no list of beads`);
  }
  return value.map((item, i) => {
    const bead = beadOf(item);
    if (!bead) throw new ToolError("upstream_error", `${command} printed no bead at item ${i}`);
    return bead;
  });
}

/**
 * One bead as a row.
 *
 * @param bead The bead.
 * @returns `ID: <id>, Status: <status>, Title: <title>` (the title on one line, bounded).
 */
export function beadRow(bead: Bead): string {
  const title = bead.title.replace(/\s+/g, " ").trim();
  const shown = title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS)}…` : title;
  return `ID: ${bead.id}, Status: ${bead.status}, Title: ${shown}`;
}

/**
 * A list of beads as rows, at most {@linkcode MAX_BEADS}.
 *
 * @param beads The beads bd printed (it was asked for one more than are shown).
 * @param none What to say when there are none.
 * @returns The text and the data.
 */
export function beadList(
  beads: readonly Bead[],
  none: string,
): { text: string; data: { beads: Bead[]; truncated: boolean } } {
  const shown = beads.slice(0, MAX_BEADS);
  const truncated = beads.length > MAX_BEADS;
  const rows = shown.map(beadRow);
  if (truncated) rows.push(`(the first ${MAX_BEADS} beads are shown; bd has more)`);
  return { text: rows.length > 0 ? rows.join("\n") : none, data: { beads: shown, truncated } };
}
