/**
 * A prepared rename written, or only shown: every file written, the one the
 * model named first, each read back and checked; on a failure, the files
 * already written put back where nothing else changed them since.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { type EditDiff, editDiff, MAX_DIFF_CHARS } from "../_diff.ts";
import { loadText, saveText } from "../_edit.ts";
import type { ToolContext } from "../tool.ts";
import type { FileEdit, RenamePlan } from "./_rename_plan.ts";

/** The smallest diff bound one file of a multi-file rename gets. */
const MIN_FILE_DIFF_CHARS = 1_000;

/**
 * Write a rename (or, in a dry run, only diff it).
 *
 * @param ctx The tool context.
 * @param plan The prepared rename.
 * @param options The file the model named (written first), and whether this is a dry run.
 * @returns Each file's diff, in the plan's order.
 * @throws {ToolError} When a write fails or a file changed meanwhile (what was written is put back).
 */
export async function renameDiffs(
  ctx: ToolContext,
  plan: RenamePlan,
  options: { path: string; dryRun: boolean },
): Promise<EditDiff[]> {
  const bound = Math.max(MIN_FILE_DIFF_CHARS, Math.floor(MAX_DIFF_CHARS / plan.edits.length));
  return options.dryRun
    ? plan.edits.map((edit) => diffOf(edit, bound))
    : await write(ctx, plan, options.path, bound);
}

function diffOf(edit: FileEdit, bound: number): EditDiff {
  return editDiff(edit.loaded.resolved.display, edit.loaded.file.text, edit.after, bound);
}

/** Write every file, the one the model named first (its stale-read check runs before any write). */
async function write(
  ctx: ToolContext,
  plan: RenamePlan,
  path: string,
  bound: number,
): Promise<EditDiff[]> {
  const named = (await ctx.fs.resolve(path, "file")).path;
  const order = [...plan.edits].sort((a, b) =>
    Number(b.loaded.resolved.path === named) - Number(a.loaded.resolved.path === named)
  );
  const written: FileEdit[] = [];
  const diffs = new Map<FileEdit, EditDiff>();
  try {
    for (const edit of order) {
      diffs.set(edit, saveText(ctx, edit.loaded, edit.after, bound));
      written.push(edit);
    }
    await checkWritten(ctx, written);
  } catch (error) {
    if (!(error instanceof ToolError) || written.length === 0) throw error;
    const back = await putBack(ctx, written);
    throw new ToolError(error.code, `${error.message} (${back})`, { cause: error });
  }
  return plan.edits.map((edit) => diffs.get(edit)!);
}

/**
 * Each written file, read back, is what was written: the text that was
 * checked to parse as well as before (so it parses) before anything was written.
 */
async function checkWritten(ctx: ToolContext, written: readonly FileEdit[]): Promise<void> {
  for (const edit of written) {
    const now = await loadText(ctx, edit.loaded.resolved.path);
    if (now.file.text !== edit.after) {
      throw new ToolError(
        "stale_read",
        `"${edit.loaded.resolved.display}" changed while the rename was written`,
      );
    }
  }
}

/**
 * Write back what the written files held before the rename, where they still
 * hold what the rename wrote (a file something else changed meanwhile is
 * left as it is: putting it back would lose that change); say what was done.
 */
async function putBack(ctx: ToolContext, written: readonly FileEdit[]): Promise<string> {
  const back: string[] = [];
  const left: string[] = [];
  for (const edit of written) {
    const display = edit.loaded.resolved.display;
    try {
      const now = await loadText(ctx, edit.loaded.resolved.path);
      if (now.file.text !== edit.after) {
        left.push(display);
        continue;
      }
      saveText(ctx, now, edit.loaded.file.text);
      back.push(display);
    } catch {
      left.push(display);
    }
  }
  const parts = [
    ...(back.length > 0 ? [`put back as it was: ${back.join(", ")}`] : []),
    ...(left.length > 0
      ? [`changed by something else meanwhile, left as it is: ${left.join(", ")}`]
      : []),
  ];
  return parts.join("; ");
}
