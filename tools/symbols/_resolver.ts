/**
 * The contract between the language-neutral symbol tools (`find_usages`,
 * `rename_symbol`) and each language's resolver: a resolver finds the one
 * symbol a model names (a file and a dotted name) and every site that refers
 * to it, across the files under a scope, from tree-sitter trees.
 *
 * @module
 */

import type { Skipped } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";

/** The symbol a model names. */
export interface SymbolTarget {
  /** The file that defines it, as the model gave it. */
  path: string;
  /** Its dotted name inside that file (`quote`, `Message.get_payload`, `ns::Widget::draw`). */
  name: string;
  /**
   * The sites are for a rename: a resolver that keeps answers resolves
   * afresh (a rename's conflicts need the resolution itself).
   */
  rename?: boolean;
}

/** What a site is. */
export type SiteRole =
  | "definition"
  | "import"
  | "export"
  | "reference"
  | "call"
  | "attribute"
  | "assignment"
  | "string";

/** One place that refers to the symbol. */
export interface SymbolSite {
  /** The file, as shown to the model. */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column (UTF-16 code units). */
  column: number;
  /** Offset of the name's first character in the decoded text (UTF-16 code units). */
  start: number;
  /** Offset just past the name's last character. */
  end: number;
  /** What the site is (`string` for an `__all__` entry and the like). */
  role: SiteRole;
  /**
   * `exact` when resolution is sure; `unsure` when the site may or may not be
   * this symbol (dynamic access, a star import, an untyped receiver): listed,
   * never renamed.
   */
  certainty: "exact" | "unsure";
  /** Why a site is unsure. */
  reason?: string;
  /**
   * The other name the site reaches the symbol by (an import alias, `q` after
   * `from m import quote as q`): listed, but a rename leaves it alone.
   */
  via?: string;
  /** The line's text, trimmed. */
  text: string;
  /** What a rename writes before the new name (`greet: ` where a shorthand `{ greet }` keeps its key). */
  prefix?: string;
  /** What a rename writes after the new name. */
  suffix?: string;
}

/** What a resolver found. */
export interface SymbolSites {
  /** The definition's location as `path:start-end` (lines). */
  definition: string;
  /** Every site, the definition first, then in path and position order. */
  sites: SymbolSite[];
  /** How many files were read. */
  filesSearched: number;
  /**
   * What the model should know about the lookup, one line (`"quote" in
   * utils.py is imported from _parseaddr.py: these are the sites of that definition`).
   */
  note?: string;
  /**
   * Why renaming the symbol to a new name would collide with or shadow
   * another name, one message per place (`mailkit/utils.py:12: "unquote" is
   * already defined in this module`); empty when it is safe. A resolver
   * without it gets the rename tool's conservative check (the new name must
   * not occur as a word in any file the rename touches).
   *
   * @param newName The new name (already a valid identifier).
   * @returns The conflicts.
   */
  renameConflicts?(newName: string): string[];
  /**
   * The sites a rename changes, with what it writes around the new name,
   * from a resolver that knows them better than "every exact site not
   * reached through an alias" (the compiler's rename locations). Without
   * it, a rename changes those.
   *
   * @returns The sites, in path and position order.
   */
  renameSites?(): SymbolSite[];
  /**
   * What a rename would break, by a resolver that can tell (the compiler's
   * new errors in the files the rename touches or that name the symbol),
   * one message per error; empty when nothing breaks.
   *
   * @param edits Each changed file's real path and new text.
   * @returns The problems.
   */
  renameBreaks?(edits: ReadonlyArray<{ path: string; after: string }>): string[];
}

/** One language's resolver. */
export interface LanguageResolver {
  /** The language, for messages (`Python`). */
  language: string;
  /** File extensions it handles, lower case with the dot. */
  extensions: readonly string[];
  /**
   * Why a name cannot be an identifier of the language (a keyword, a bad
   * character), or `undefined` when it can. Without it, names must match
   * `[A-Za-z_$][A-Za-z0-9_$]*`.
   *
   * @param name The proposed name.
   * @returns The reason, or `undefined`.
   */
  invalidName?(name: string): string | undefined;
  /**
   * Find the symbol and its sites.
   *
   * @param ctx The tool context (file access only through `ctx.fs`).
   * @param target The symbol.
   * @param scope The directory whose files may refer to it (a model path).
   * @param skipped Counts files that could not be read or parsed.
   * @returns The definition and the sites.
   * @throws {ToolError} `not_found` when the file does not define the name.
   */
  findSites(
    ctx: ToolContext,
    target: SymbolTarget,
    scope: string,
    skipped: Skipped,
  ): Promise<SymbolSites>;
  /**
   * Bring what the resolver keeps of a root up to date ahead of any call
   * (the host's start, in the background), for resolvers that keep an index.
   *
   * @param ctx The tool context.
   * @param root A root's real path.
   */
  prepare?(ctx: ToolContext, root: string): Promise<void>;
}
