/**
 * What a whole-tree tool could not walk, read or parse: such a file (or
 * directory) is left out and counted, and the call goes on with the rest.
 * Every tool says it the same way — a last line of text
 * `skipped: N (first: <path>: <reason>)` and, in `structuredContent`,
 * `skipped: {count, first?: {path, reason}}`.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../security/errors.ts";
import type { Logger } from "./tool.ts";

/** One thing left out, and why. */
export interface SkippedEntry {
  /** Its path as shown to the model. */
  path: string;
  /** Why it was left out (`binary file`, `permission denied`, ...). */
  reason: string;
}

/** The `skipped` field of a whole-tree tool's `structuredContent`. */
export interface SkippedSummary {
  /** How many files and directories were left out. */
  count: number;
  /** The first one, when there is one. */
  first?: SkippedEntry;
}

/** The output schema of the `skipped` field. */
export const SKIPPED_OUTPUT = z.object({
  count: z.number().describe("How many files and directories could not be walked, read or parsed"),
  first: z.object({ path: z.string(), reason: z.string() }).optional().describe(
    "The first one, and why",
  ),
}).describe("What was left out; the rest of the tree was still searched");

/**
 * Counts what a whole-tree tool left out.
 *
 * @example
 * ```ts
 * const skipped = new Skipped();
 * skipped.add("assets/logo.py", "binary file");
 * skipped.note(); // "skipped: 1 (first: assets/logo.py: binary file)"
 * ```
 */
export class Skipped {
  #count = 0;
  #first: SkippedEntry | undefined;

  /** How many were left out. */
  get count(): number {
    return this.#count;
  }

  /**
   * Count one thing left out.
   *
   * @param path Its path as shown to the model.
   * @param reason Why, in a few words (`binary file (PNG image)`, `permission denied`).
   */
  add(path: string, reason: string): void {
    this.#count++;
    this.#first ??= { path, reason };
  }

  /**
   * Count one thing left out because of an error; an error nobody expected
   * (a bug, not a hostile file) also goes to the log.
   *
   * @param path Its path as shown to the model.
   * @param error What was thrown.
   * @param logger Where unexpected errors are logged.
   */
  failed(path: string, error: unknown, logger: Logger): void {
    const reason = skipReason(error, path);
    if (reason === UNEXPECTED) logger.warn(`Skipped "${path}" after an unexpected error`, error);
    this.add(path, reason);
  }

  /** The `skipped` field for `structuredContent`. */
  summary(): SkippedSummary {
    return this.#first ? { count: this.#count, first: { ...this.#first } } : { count: 0 };
  }

  /** `skipped: N (first: <path>: <reason>)`, or `undefined` when nothing was left out. */
  note(): string | undefined {
    if (!this.#first) return undefined;
    return `skipped: ${this.#count} (first: ${this.#first.path}: ${this.#first.reason})`;
  }

  /**
   * A tool's text with the note as its last line (unchanged when nothing was left out).
   *
   * @param text The text.
   * @returns The text and the note.
   */
  appendTo(text: string): string {
    const note = this.note();
    return note === undefined ? text : `${text}\n${note}`;
  }
}

const UNEXPECTED = "unexpected error (the details are in the host's log)";

/**
 * Why an error left a file out, in a few words that never name host
 * internals (outside paths, stacks).
 *
 * @param error What was thrown while walking, reading or parsing it.
 * @param path Its path as shown to the model.
 * @returns The reason.
 */
export function skipReason(error: unknown, path = ""): string {
  // A path that changed under the check (its message would name an absolute path), or vanished.
  const gone = error instanceof Deno.errors.NotFound ||
    (error instanceof ToolError && /changed while it was being used/.test(error.message));
  // Deno lists a name that is not UTF-8 with U+FFFD in its place, and then cannot find it.
  if (gone && path.includes("\uFFFD")) return "name is not valid UTF-8";
  if (gone) {
    return error instanceof ToolError ? "changed while being read" : "vanished while being read";
  }
  if (error instanceof ToolError) {
    if (/: permission denied$/.test(error.message)) return "permission denied";
    return error.message.charAt(0).toLowerCase() + error.message.slice(1);
  }
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
    return "permission denied";
  }
  if (error instanceof Deno.errors.FilesystemLoop) return "symlink loop";
  if (error instanceof Deno.errors.IsADirectory) return "is a directory";
  if (error instanceof Error && /name too long|os error 36\b/i.test(error.message)) {
    return "path is too long";
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return "nested too deeply to analyse";
  }
  return UNEXPECTED;
}
