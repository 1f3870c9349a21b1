/**
 * Loading and saving text files for the editing tools: decoded once, written
 * back atomically with the same encoding, BOM and line endings.
 *
 * @module
 */

import { z } from "zod";
import type { ResolvedPath } from "../security/resolver.ts";
import { decodeText, type TextFile } from "./_text.ts";
import { encodeText } from "./_text_encode.ts";
import { type EditDiff, editDiff, MAX_DIFF_CHARS } from "./_diff.ts";
import type { ToolContext, ToolResult } from "./tool.ts";

/**
 * The `force` input of every editing tool (the host reads it: see stale-read
 * protection). Undescribed: the `stale_read` refusal says when to pass it.
 */
export const FORCE = z.boolean().default(false);

/**
 * The `allow_syntax_errors` input of the code editors. Undescribed: the
 * `syntax_error` refusal says when to pass it.
 */
export const ALLOW_SYNTAX_ERRORS = z.boolean().default(false);

/** A text file loaded for editing. */
export interface LoadedText {
  /** The checked path. */
  resolved: ResolvedPath;
  /** The decoded file. */
  file: TextFile;
}

/**
 * Load a text file for reading or editing (up to `limits.maxEditBytes`).
 *
 * @param ctx The tool context.
 * @param path The model's path.
 * @returns The checked path and the decoded file.
 */
export async function loadText(ctx: ToolContext, path: string): Promise<LoadedText> {
  const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxEditBytes);
  return { resolved, file: decodeText(bytes, resolved.display) };
}

/**
 * Save new text over a loaded file, atomically, in the file's own encoding,
 * and say what changed. Every tool that edits a loaded file saves through here.
 *
 * @param ctx The tool context.
 * @param loaded The file as loaded.
 * @param text The new text (already in the file's line endings).
 * @param maxDiffChars The diff's bound (smaller when a tool changes several files).
 * @returns The diff from the loaded text to the new one.
 * @throws {ToolError} When the write is refused (stale read, protected, swapped).
 */
export function saveText(
  ctx: ToolContext,
  loaded: LoadedText,
  text: string,
  maxDiffChars: number = MAX_DIFF_CHARS,
): EditDiff {
  ctx.fs.writeResolved(loaded.resolved, encodeText(text, loaded.file));
  return editDiff(loaded.resolved.display, loaded.file.text, text, maxDiffChars);
}

/**
 * An editing tool's result: a one-line summary, then the diff of every file it
 * changed; `structuredContent` has the diff and its counts.
 *
 * @param summary What was done, one line.
 * @param diffs One diff per changed file.
 * @returns The result.
 */
export function editResult(summary: string, diffs: readonly EditDiff[]): ToolResult {
  const diff = diffs.map((each) => each.text).join("");
  const added = diffs.reduce((sum, each) => sum + each.added, 0);
  const removed = diffs.reduce((sum, each) => sum + each.removed, 0);
  return {
    content: [{ type: "text", text: diff ? `${summary}\n${diff}` : summary }],
    structuredContent: {
      diff,
      added,
      removed,
      truncated: diffs.some((each) => each.truncated),
    },
  };
}

/**
 * Count lines the way editors do: a final line without a newline counts.
 *
 * @param text The text.
 * @returns The number of lines.
 */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(\r\n|\r|\n)$/.test(text) ? breaks : breaks + 1;
}
