/**
 * A set of tree-sitter grammars, found by name or by the extension of the
 * file they parse: what the parser layer is handed (each family declares
 * its own grammars in its `family.ts`).
 *
 * @module
 */

import type { GrammarAsset } from "./family.ts";

/** A grammar's name, as the family that parses with it declares it (`python`, `tsx`). */
export type Grammar = string;

/** Grammars by name and by the extensions they parse. */
export class GrammarTable {
  #byName: ReadonlyMap<Grammar, GrammarAsset>;
  #byExtension: ReadonlyMap<string, Grammar>;

  /**
   * A table of grammars.
   *
   * @param grammars The grammars; of two with one name, the first is kept.
   */
  constructor(grammars: readonly GrammarAsset[]) {
    const byName = new Map<Grammar, GrammarAsset>();
    for (const grammar of grammars) {
      if (!byName.has(grammar.name)) byName.set(grammar.name, grammar);
    }
    this.#byName = byName;
    this.#byExtension = new Map(
      [...byName.values()].flatMap((grammar) =>
        grammar.extensions.map((extension) => [extension, grammar.name] as const)
      ),
    );
  }

  /**
   * The grammar for a file name, by extension.
   *
   * @param path A file name or path.
   * @returns The grammar's name, or `undefined`.
   */
  forPath(path: string): Grammar | undefined {
    const dot = path.lastIndexOf(".");
    return dot < 0 ? undefined : this.#byExtension.get(path.slice(dot).toLowerCase());
  }

  /**
   * A grammar by name.
   *
   * @param name The grammar's name.
   * @returns Its declaration, or `undefined`.
   */
  get(name: Grammar): GrammarAsset | undefined {
    return this.#byName.get(name);
  }
}
