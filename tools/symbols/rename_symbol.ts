/**
 * `rename_symbol`: rename one symbol and its exact uses across the project,
 * or, with `dry_run`, show the diff without writing. Every file is loaded and
 * checked before the first is written.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { type EditDiff, editDiff, MAX_DIFF_CHARS } from "../_diff.ts";
import { editResult, FORCE, saveText } from "../_edit.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { locate, siteLine } from "./_locate.ts";
import { checkNewName, type FileEdit, planRename, type RenamePlan } from "./_rename_plan.ts";

/** The smallest diff bound one file of a multi-file rename gets. */
const MIN_FILE_DIFF_CHARS = 1_000;

/** The most left-alone sites listed in the answer. */
const MAX_LEFT_SHOWN = 30;

/** Rename a symbol. */
export const renameSymbol = defineTool({
  name: "rename_symbol",
  description:
    "Rename a symbol (file + dotted name) at its definition and exact uses in every file; never strings, comments or other symbols. dry_run: diff only.",
  input: z.object({
    path: z.string().min(1).describe("File that defines it"),
    name: z.string().min(1),
    new_name: z.string().min(1),
    scope: z.string().min(1).optional().describe("Directory to search (default: its root)"),
    dry_run: z.boolean().default(false),
    force: FORCE,
  }),
  annotations: { title: "Rename symbol", destructiveHint: true, idempotentHint: false },
  async run({ path, name, new_name, scope, dry_run }, ctx) {
    const oldName = name.split(/\.|::/).at(-1) ?? name;
    const located = await locate(ctx, path, name, scope);
    checkNewName(located.resolver, oldName, new_name);
    const plan = await planRename(ctx, located, oldName, new_name);
    const bound = Math.max(MIN_FILE_DIFF_CHARS, Math.floor(MAX_DIFF_CHARS / plan.edits.length));
    const diffs = dry_run
      ? plan.edits.map((edit) => diffOf(edit, bound))
      : await write(ctx, plan, path, bound);
    return answer(plan, diffs, { oldName, newName: new_name, dryRun: dry_run });
  },
});

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
  const written: string[] = [];
  const diffs = new Map<FileEdit, EditDiff>();
  for (const edit of order) {
    try {
      diffs.set(edit, saveText(ctx, edit.loaded, edit.after, bound));
    } catch (error) {
      if (!(error instanceof ToolError) || written.length === 0) throw error;
      throw new ToolError(
        error.code,
        `${error.message} (already renamed in ${
          written.join(", ")
        }; the other files are unchanged)`,
        { cause: error },
      );
    }
    written.push(edit.loaded.resolved.display);
  }
  return plan.edits.map((edit) => diffs.get(edit)!);
}

function answer(
  plan: RenamePlan,
  diffs: EditDiff[],
  names: { oldName: string; newName: string; dryRun: boolean },
): ToolResult {
  const count = plan.renamed.length;
  const files = plan.edits.length;
  const verb = names.dryRun ? "Would rename" : "Renamed";
  const summary = `${verb} "${names.oldName}" to "${names.newName}" at ${count} site${
    count === 1 ? "" : "s"
  } in ${files} file${files === 1 ? "" : "s"}${names.dryRun ? " (dry run: nothing written)" : ""}`;
  const result = editResult(summary, diffs);
  if (plan.left.length > 0) {
    const shown = plan.left.slice(0, MAX_LEFT_SHOWN).map(siteLine);
    if (plan.left.length > MAX_LEFT_SHOWN) {
      shown.push(`… ${plan.left.length - MAX_LEFT_SHOWN} more`);
    }
    const block = `Left alone (unsure, or reached through an alias): ${plan.left.length}\n${
      shown.join("\n")
    }`;
    result.content.push({ type: "text", text: block });
  }
  result.structuredContent = {
    ...result.structuredContent,
    dry_run: names.dryRun,
    files: plan.edits.map((edit) => edit.loaded.resolved.display),
    renamed: count,
    left_alone: plan.left.map(({ start: _start, end: _end, ...site }) => site),
  };
  return result;
}
