/**
 * Loading and saving text files for the editing tools: decoded once, written
 * back atomically with the same encoding, BOM and line endings.
 *
 * @module
 */

import type { ResolvedPath } from "../security/resolver.ts";
import { decodeText, encodeText, type TextFile } from "./_text.ts";
import type { ToolContext } from "./tool.ts";

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
 * Save new text over a loaded file, atomically, in the file's own encoding.
 *
 * @param ctx The tool context.
 * @param loaded The file as loaded.
 * @param text The new text (already in the file's line endings).
 */
export function saveText(ctx: ToolContext, loaded: LoadedText, text: string): void {
  ctx.fs.writeResolved(loaded.resolved, encodeText(text, loaded.file));
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
