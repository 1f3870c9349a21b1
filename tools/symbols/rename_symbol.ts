/**
 * `rename_symbol`: rename one symbol and its exact uses across the project,
 * or, with `dry_run`, show the diff without writing. Every file is loaded and
 * checked before the first is written.
 *
 * @module
 */

import { z } from "zod";
import type { EditDiff } from "../_diff.ts";
import { editResult, FORCE } from "../_edit.ts";
import { defineTool, type ToolResult } from "../tool.ts";
import { locate, SCOPE_INPUT, siteLine, SYMBOL_INPUT } from "./_locate.ts";
import { checkNewName, planRename, type RenamePlan } from "./_rename_plan.ts";
import { renameDiffs } from "./_rename_write.ts";

/** Rename a symbol. */
export const renameSymbol = defineTool({
  name: "rename_symbol",
  description:
    "Rename a symbol (file + dotted name) at its definition and exact uses in every file; never strings, comments or other symbols. dry_run: diff only.",
  input: z.object({
    ...SYMBOL_INPUT,
    new_name: z.string().min(1),
    scope: SCOPE_INPUT,
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
    const diffs = await renameDiffs(ctx, plan, { path, dryRun: dry_run });
    return answer(plan, diffs, { oldName, newName: new_name, dryRun: dry_run });
  },
});

/** The most left-alone sites listed in the answer. */
const MAX_LEFT_SHOWN = 30;

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
