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
import { editResult, FORCE, loadText, saveText } from "../_edit.ts";
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
    include_unsure: z.union([z.enum(["all", "none"]), z.array(z.string().min(1)).min(1)])
      .optional()
      .describe('Unsure sites: "all", "none" or path:line:column list'),
    force: FORCE,
  }),
  annotations: { title: "Rename symbol", destructiveHint: true, idempotentHint: false },
  async run({ path, name, new_name, scope, dry_run, include_unsure }, ctx) {
    const oldName = name.split(/\.|::/).at(-1) ?? name;
    const located = await locate(ctx, path, name, scope, true);
    checkNewName(located.resolver, oldName, new_name);
    const plan = await planRename(ctx, located, {
      oldName,
      newName: new_name,
      includeUnsure: include_unsure,
    });
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
  if (plan.mentions.length > 0) {
    result.content.push({
      type: "text",
      text:
        `Still named "${names.oldName}" in comments or strings (not renamed; check them): ${plan.mentions.length}\n${
          plan.mentions.join("\n")
        }`,
    });
  }
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
    mentions_left: plan.mentions,
  };
  return result;
}
