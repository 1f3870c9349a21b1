/**
 * What a rename takes and what it tells: the sites it changes (refusing
 * while some are unsure, unless the model says which of those to take), and
 * the mentions of the old name it leaves in comments and strings.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { Node, Tree } from "web-tree-sitter";
import type { Located } from "./_locate.ts";
import type { SymbolSite } from "./_resolver.ts";
import { wordPattern } from "./_lines.ts";

/**
 * Which unsure sites a rename takes: none without being told (it is refused
 * while there are any), `all`, `none` (they stay as they are), or those at
 * the given `path:line:column`s.
 */
export type IncludeUnsure = "all" | "none" | readonly string[] | undefined;

/** The most unsure sites a refusal lists, and the most mentions a plan keeps. */
const MAX_LISTED = 20;

/**
 * The sites a rename changes: the resolver's rename sites (or every exact
 * site not reached through an alias), and the unsure ones it is told to take.
 *
 * @param located The symbol and its sites.
 * @param names The old name, and which unsure sites to take.
 * @returns The sites.
 * @throws {ToolError} `unsure_sites` while some are unsure and nothing was said of them;
 *   `invalid_argument` for a listed site that is not an unsure one.
 */
export function chosenSites(
  located: Located,
  names: { oldName: string; includeUnsure?: IncludeUnsure },
): SymbolSite[] {
  const { sites } = located.found;
  const exact = located.found.renameSites?.() ??
    sites.filter((site) => site.certainty === "exact" && site.via === undefined);
  const unsure = sites.filter((site) => site.certainty === "unsure" && site.via === undefined);
  const include = names.includeUnsure;
  if (unsure.length === 0 || include === "none") return exact;
  if (include === undefined) {
    const shown = unsure.slice(0, MAX_LISTED).map(where);
    const more = unsure.length > MAX_LISTED ? `, and ${unsure.length - MAX_LISTED} more` : "";
    throw new ToolError(
      "unsure_sites",
      `Cannot rename "${names.oldName}" yet: ${unsure.length} site${
        unsure.length === 1 ? " is" : "s are"
      } unsure (may or may not be this symbol; renaming one wrongly, or leaving one that is, breaks code): ${
        shown.join("; ")
      }${more}. Call again with include_unsure: "all" to rename them too, "none" to leave them, or the path:line:column of those to rename`,
    );
  }
  if (include === "all") return [...exact, ...unsure];
  const byKey = new Map(unsure.map((site) => [key(site), site]));
  const unknown = include.filter((each) => !byKey.has(each));
  if (unknown.length > 0) {
    throw new ToolError(
      "invalid_argument",
      `include_unsure names no unsure site at ${unknown.join(", ")}; the unsure sites are ${
        [...byKey.keys()].slice(0, MAX_LISTED).join(", ")
      }`,
    );
  }
  return [...exact, ...new Set(include.map((each) => byKey.get(each)!))];
}

/** `path:line:column`, as a model names an unsure site. */
function key(site: SymbolSite): string {
  return `${site.path}:${site.line}:${site.column}`;
}

/** `path:line:column (why)`. */
function where(site: SymbolSite): string {
  return `${key(site)}${site.reason ? ` (${site.reason})` : ""}`;
}

/**
 * Where a changed file still has the old name, after the rename, in a
 * comment or string (a docstring included): `path:line: text`, once a line.
 *
 * @param display The file as shown.
 * @param after Its new text.
 * @param tree The new text's tree (the caller's, parsed once for its check too).
 * @param oldName The old name.
 * @returns The mentions.
 */
export function mentionsIn(display: string, after: string, tree: Tree, oldName: string): string[] {
  const word = wordPattern(oldName, "g");
  const lines = after.split("\n");
  const starts: number[] = [];
  for (let i = 0, at = 0; i < lines.length; at += lines[i]!.length + 1, i++) starts.push(at);
  const out: string[] = [];
  for (const match of after.matchAll(word)) {
    let inside: Node | null = tree.rootNode.descendantForIndex(match.index);
    while (inside && !/comment|string/.test(inside.type)) inside = inside.parent;
    if (!inside) continue;
    const line = starts.findLastIndex((start) => start <= match.index);
    const mention = `${display}:${line + 1}: ${lines[line]!.trim().slice(0, 120)}`;
    if (out.at(-1) !== mention) out.push(mention);
  }
  return out;
}

/**
 * At most {@linkcode MAX_LISTED} mentions, and a count of the rest.
 *
 * @param mentions The mentions.
 * @returns Those shown.
 */
export function shownMentions(mentions: readonly string[]): string[] {
  if (mentions.length <= MAX_LISTED) return [...mentions];
  return [...mentions.slice(0, MAX_LISTED), `… ${mentions.length - MAX_LISTED} more`];
}
