/**
 * A rename, prepared before anything is written: the symbol's exact sites
 * (never an alias's, never an unsure one), every file they are in loaded and
 * checked to still hold the old name at each site, the new name checked for
 * collisions, and each file's new text checked to parse as well as before.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { type LoadedText, loadText } from "../_edit.ts";
import { treeSitter } from "../_treesitter.ts";
import type { ToolContext } from "../tool.ts";
import type { LanguageResolver, SymbolSite } from "./_resolver.ts";
import type { Located } from "./_locate.ts";
import { wordPattern } from "./_lines.ts";
import { chosenSites, type IncludeUnsure, mentionsIn, shownMentions } from "./_rename_sites.ts";

/** One file's change. */
export interface FileEdit {
  /** The file as loaded. */
  readonly loaded: LoadedText;
  /** Its new text. */
  readonly after: string;
  /** Each range of the old text replaced, and the length of what replaced it, in order. */
  readonly changes: ReadonlyArray<{ start: number; end: number; length: number }>;
  /** How many sites it renames. */
  readonly sites: number;
}

/** A prepared rename. */
export interface RenamePlan {
  /** Each file's change, the definition's file first. */
  readonly edits: FileEdit[];
  /** The sites renamed. */
  readonly renamed: SymbolSite[];
  /** The sites listed but left alone (unsure, or reached through an alias). */
  readonly left: SymbolSite[];
  /** The old name where the changed files still have it in a comment or string: `path:line: text`. */
  readonly mentions: string[];
}

/** The most conflicts an error names. */
const MAX_CONFLICTS_SHOWN = 8;

/**
 * Refuse a new name the language cannot take, or the old name itself.
 *
 * @param resolver The language's resolver.
 * @param oldName The symbol's current name.
 * @param newName The proposed name.
 * @throws {ToolError} `invalid_argument`.
 */
export function checkNewName(resolver: LanguageResolver, oldName: string, newName: string): void {
  const why = resolver.invalidName
    ? resolver.invalidName(newName)
    : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(newName)
    ? undefined
    : "it is not an identifier";
  if (why) throw new ToolError("invalid_argument", `Cannot rename to "${newName}": ${why}`);
  if (newName === oldName) {
    throw new ToolError("invalid_argument", `Cannot rename "${oldName}": the new name is the same`);
  }
}

/**
 * Prepare a rename.
 *
 * @param ctx The tool context.
 * @param located The symbol and its sites.
 * @param oldName The symbol's current name.
 * @param newName The new name (already checked by {@linkcode checkNewName}).
 * @returns The plan.
 * @throws {ToolError} `conflict` when the new name collides; `stale_read` when a file changed since it was resolved; `syntax_error` when a file would no longer parse.
 */
export async function planRename(
  ctx: ToolContext,
  located: Located,
  names: { oldName: string; newName: string; includeUnsure?: IncludeUnsure },
): Promise<RenamePlan> {
  const { oldName, newName } = names;
  const sites = located.found.sites;
  const renamed = chosenSites(located, names);
  const changed = new Set(renamed.map((site) => `${site.path}:${site.start}`));
  const left = sites.filter((site) => !changed.has(`${site.path}:${site.start}`));
  const byPath = new Map<string, SymbolSite[]>();
  for (const site of renamed) byPath.set(site.path, [...(byPath.get(site.path) ?? []), site]);
  const edits: FileEdit[] = [];
  for (const [path, fileSites] of byPath) {
    const loaded = await loadText(ctx, path);
    edits.push({
      loaded,
      ...renameIn(loaded, fileSites, oldName, newName),
      sites: fileSites.length,
    });
  }
  refuseConflicts(located.found.renameConflicts?.(newName) ?? wordConflicts(edits, newName), names);
  const after = edits.map((edit) => ({ path: edit.loaded.resolved.path, after: edit.after }));
  refuseConflicts(located.found.renameBreaks?.(after) ?? [], names);
  const mentions: string[] = [];
  for (const edit of edits) mentions.push(...await checkParses(ctx, edit, oldName));
  return { edits, renamed, left, mentions: shownMentions(mentions) };
}

/** A file's text with each site's old name replaced, and where. */
function renameIn(
  loaded: LoadedText,
  sites: SymbolSite[],
  oldName: string,
  newName: string,
): Pick<FileEdit, "after" | "changes"> {
  const text = loaded.file.text;
  const changes: Array<{ start: number; end: number; length: number }> = [];
  let out = "";
  let at = 0;
  for (const site of [...sites].sort((a, b) => a.start - b.start)) {
    if (text.slice(site.start, site.end) !== oldName || site.start < at) {
      throw new ToolError(
        "stale_read",
        `"${loaded.resolved.display}" changed while the rename was being prepared; call rename_symbol again`,
      );
    }
    const replacement = (site.prefix ?? "") + newName + (site.suffix ?? "");
    out += text.slice(at, site.start) + replacement;
    changes.push({ start: site.start, end: site.end, length: replacement.length });
    at = site.end;
  }
  return { after: out + text.slice(at), changes };
}

/** A `conflict` error listing the first few problems, when there are any. */
function refuseConflicts(
  conflicts: readonly string[],
  { oldName, newName }: { oldName: string; newName: string },
): void {
  if (conflicts.length === 0) return;
  const shown = conflicts.slice(0, MAX_CONFLICTS_SHOWN).join("; ");
  const more = conflicts.length > MAX_CONFLICTS_SHOWN
    ? ` (and ${conflicts.length - MAX_CONFLICTS_SHOWN} more)`
    : "";
  throw new ToolError("conflict", `Cannot rename "${oldName}" to "${newName}": ${shown}${more}`);
}

/** Without a resolver's check: the new name must not occur as a word in any file the rename touches. */
function wordConflicts(edits: readonly FileEdit[], newName: string): string[] {
  const word = wordPattern(newName);
  const out: string[] = [];
  for (const { loaded } of edits) {
    const lines = loaded.file.text.split(/\r\n|\r|\n/);
    const line = lines.findIndex((text) => word.test(text));
    if (line >= 0) {
      out.push(`${loaded.resolved.display}:${line + 1}: "${newName}" is already used here`);
    }
  }
  return out;
}

/**
 * Refuse a change that would make a file that parsed cleanly no longer
 * parse; else say where the new text still has the old name in a comment or
 * string (from the one parse of it).
 */
async function checkParses(ctx: ToolContext, edit: FileEdit, oldName: string): Promise<string[]> {
  const ts = treeSitter(ctx);
  const grammar = ts.grammarFor(edit.loaded.resolved.path);
  if (!grammar) return [];
  // The file as loaded, from the worker's tree cache when another tool parsed it already; the
  // new text parsed from it again where the rename changed it.
  const before = await ts.parseFile(edit.loaded.resolved, edit.loaded.file.text, grammar);
  const after = await ts.parseEdited(before, edit.after, edit.changes, grammar);
  try {
    if (after.rootNode.hasError && !before.tree.rootNode.hasError) {
      throw new ToolError(
        "syntax_error",
        `Cannot rename: "${edit.loaded.resolved.display}" would no longer parse; nothing was written`,
      );
    }
    return mentionsIn(edit.loaded.resolved.display, edit.after, after, oldName);
  } finally {
    after.delete();
  }
}
