/**
 * The tree-sitter service the families compose: the parser layer
 * (`_treesitter.ts`) with every grammar the families declare
 * (`grammars.ts`). The tool worker puts one in its tool contexts' shared
 * values at start-up; below this file, nothing knows the family list.
 *
 * @module
 */

import { TreeSitter, type TreeSitterOptions } from "./_treesitter.ts";
import { DECLARED_GRAMMARS } from "./grammars.ts";

/** Options for {@linkcode DeclaredTreeSitter}: its cache budget (the grammars are the declared ones). */
export type DeclaredTreeSitterOptions = Omit<TreeSitterOptions, "grammars">;

/**
 * A {@linkcode TreeSitter} that parses with every grammar the families declare.
 *
 * @example
 * ```ts
 * import { DeclaredTreeSitter } from "./declared_tree_sitter.ts";
 * import { TREE_SITTER_SERVICE } from "./_treesitter.ts";
 *
 * const shared = new Map<string, unknown>([[TREE_SITTER_SERVICE, new DeclaredTreeSitter()]]);
 * ```
 */
export class DeclaredTreeSitter extends TreeSitter {
  /**
   * A tree-sitter service with the declared grammars and nothing parsed yet.
   *
   * @param options Its cache budget.
   */
  constructor(options: DeclaredTreeSitterOptions = {}) {
    super({ ...options, grammars: DECLARED_GRAMMARS });
  }
}
