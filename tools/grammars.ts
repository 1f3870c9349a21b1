/**
 * The grammars the families declare, gathered once from the family list:
 * what `assets.ts` grants and `compile` includes, and what the parser
 * layer is handed by whoever composes the families
 * (`declared_tree_sitter.ts`). Declarations only: no tool code.
 *
 * @module
 */

import type { GrammarAsset } from "./family.ts";
import { type Grammar, GrammarTable } from "./_grammar_table.ts";
import { FAMILIES } from "./families.ts";

/** Every grammar a family declares, once each (the first declaration of a name wins). */
export const DECLARED_GRAMMARS: readonly GrammarAsset[] = Object.freeze(
  FAMILIES.flatMap((family) => family.grammars ?? []).filter((grammar, i, all) =>
    all.findIndex((each) => each.name === grammar.name) === i
  ),
);

/** The declared grammars by name and extension. */
const DECLARED = new GrammarTable(DECLARED_GRAMMARS);

/**
 * The grammar for a file name, by extension, among those the families
 * declare: for code with no tool context. Tool code asks the parser it was
 * handed, `treeSitter(ctx).grammarFor(path)`.
 *
 * @param path A file name or path.
 * @returns The grammar, or `undefined`.
 */
export function grammarForPath(path: string): Grammar | undefined {
  return DECLARED.forPath(path);
}
