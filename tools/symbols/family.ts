/**
 * The symbol tools: `find_usages` and `rename_symbol`, one pair for every
 * language with a resolver. They run in the code worker (the resolvers keep
 * per-file facts there) and parse with the grammars of those languages.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";
import { CFAMILY } from "../cfamily/family.ts";
import { PYTHON } from "../python/family.ts";
import { TYPESCRIPT } from "../typescript/family.ts";

/** The symbol tools' declaration. */
export const SYMBOLS: ToolFamily = defineFamily({
  name: "symbols",
  runs: "worker",
  icon: ICONS.symbols,
  // The grammars of the languages `_resolvers.ts` lists (the family is shown once one is in the roots).
  grammars: [PYTHON, TYPESCRIPT, CFAMILY].flatMap((family) => family.grammars ?? []),
  prefersCodeWorker: true,
  pathArgs: ["path", "scope"],
});
