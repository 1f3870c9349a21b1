/**
 * The unified diff every editing tool answers with, so that a model can check
 * its edit without reading the file again: three lines of context, bounded in
 * length (whole hunks are dropped from the end, and the note says how many).
 * It is the diff of the decoded text as stored: in a CRLF file each diff line
 * ends with the file's `\r`, so that applying it gives the new text exactly.
 *
 * @module
 */

import { structuredPatch } from "diff";

/** The longest diff an editing tool shows, in characters. */
export const MAX_DIFF_CHARS = 8_000;
/** Beyond this many added and removed lines the diff is not computed (the note says so). */
const MAX_EDIT_LENGTH = 2_000;
/** Nor when computing it takes longer than this, in milliseconds. */
const MAX_DIFF_MS = 500;

/** A diff as a tool shows it. */
export interface EditDiff {
  /**
   * The unified diff (`--- a/path`, `+++ b/path`, hunks) or a one-line note,
   * ending with a newline; empty for no change.
   */
  text: string;
  /** Whether it does not show the whole change (hunks left out, or only a note). */
  truncated: boolean;
  /** Lines added. */
  added: number;
  /** Lines removed. */
  removed: number;
}

/**
 * The unified diff of one file's change, applicable with `patch -p1` (or the
 * `diff` package's `applyPatch`) when not truncated.
 *
 * @param display The file's path as shown to the model.
 * @param before The text before (empty for a new file).
 * @param after The text after.
 * @param maxChars The bound (default {@linkcode MAX_DIFF_CHARS}).
 * @returns The diff and its counts; empty text when nothing changed.
 */
export function editDiff(
  display: string,
  before: string,
  after: string,
  maxChars: number = MAX_DIFF_CHARS,
): EditDiff {
  if (before === after) return { text: "", truncated: false, added: 0, removed: 0 };
  const patch = structuredPatch(
    `a/${display}`,
    `b/${display}`,
    before,
    after,
    undefined,
    undefined,
    {
      context: 3,
      maxEditLength: MAX_EDIT_LENGTH,
      timeout: MAX_DIFF_MS,
    },
  );
  if (patch === undefined) {
    return diffNote(display, "changed throughout, too many lines to diff; read it to see it");
  }
  const hunks = patch.hunks.map(hunkText);
  let added = 0;
  let removed = 0;
  for (const line of patch.hunks.flatMap((hunk) => hunk.lines)) {
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  const out = [`--- a/${display}`, `+++ b/${display}`];
  let length = out.join("\n").length;
  let shown = 0;
  while (shown < hunks.length && (shown === 0 || length + 1 + hunks[shown]!.length <= maxChars)) {
    out.push(hunks[shown]!);
    length += 1 + hunks[shown]!.length;
    shown++;
  }
  let text = out.join("\n");
  const cut = text.length > maxChars;
  if (cut) text = text.slice(0, Math.max(text.lastIndexOf("\n", maxChars), 0));
  const left = hunks.length - shown;
  if (cut || left > 0) {
    text += `\n… diff cut at ${maxChars} characters${
      left > 0 ? `: ${left} more hunk${left === 1 ? "" : "s"}` : ""
    }; read the file to see the rest`;
  }
  return { text: `${text}\n`, truncated: cut || left > 0, added, removed };
}

/**
 * A note in place of a diff, when there is none to show.
 *
 * @param display The file's path as shown to the model.
 * @param why Why there is no diff (e.g. `the old content is binary`).
 * @returns A one-line, truncated diff.
 */
export function diffNote(display: string, why: string): EditDiff {
  return { text: `(no diff for ${display}: ${why})\n`, truncated: true, added: 0, removed: 0 };
}

/** One hunk as unified-diff text: its header, then its lines. */
function hunkText(hunk: {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}): string {
  // An empty side is numbered from the line before it, as `diff -u` does.
  const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
  const header = `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`;
  return [header, ...hunk.lines].join("\n");
}
