/**
 * The grammars the families declare, gathered once from the family list:
 * what `assets.ts` grants and `compile` includes, and what the parser
 * layer's shared service parses with by default (`_treesitter.ts`), until
 * every caller is handed its grammars. Declarations only: no tool code.
 *
 * @module
 */

import type { GrammarAsset } from "./family.ts";
import { FAMILIES } from "./families.ts";

/** Every grammar a family declares, once each (the first declaration of a name wins). */
export const DECLARED_GRAMMARS: readonly GrammarAsset[] = Object.freeze(
  FAMILIES.flatMap((family) => family.grammars ?? []).filter((grammar, i, all) =>
    all.findIndex((each) => each.name === grammar.name) === i
  ),
);
