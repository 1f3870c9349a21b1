/**
 * The languages the analysis tools read: those the families beside them
 * declare ({@linkcode LanguageReader}), each file given to the one whose
 * grammar parses its extension.
 *
 * @module
 */

import type { LanguageReader } from "../family.ts";
import { type Grammar, GrammarTable } from "../_grammar_table.ts";

/** A file's language: who reads it, and with which grammar. */
export interface Reading {
  /** The language. */
  readonly reader: LanguageReader;
  /** The grammar. */
  readonly grammar: Grammar;
}

/** The languages handed to the analysis tools, by grammar and by extension. */
export class Languages {
  #table: GrammarTable;
  #byGrammar = new Map<Grammar, LanguageReader>();

  /** @param readers The languages; of two that declare one grammar, the first reads it. */
  constructor(readers: readonly LanguageReader[]) {
    for (const reader of readers) {
      for (const grammar of reader.grammars) {
        if (!this.#byGrammar.has(grammar.name)) this.#byGrammar.set(grammar.name, reader);
      }
    }
    this.#table = new GrammarTable(readers.flatMap((reader) => reader.grammars));
  }

  /**
   * Whether a file is one of these languages', by its extension.
   *
   * @param path A file name or path.
   */
  has(path: string): boolean {
    return this.#table.forPath(path) !== undefined;
  }

  /**
   * Who reads a file, by its extension and, when given, its text (a C++ `.h` header).
   *
   * @param path A file name or path.
   * @param text The file's text.
   * @returns The language and grammar, or `undefined` for a file none of them reads.
   */
  find(path: string, text?: string): Reading | undefined {
    const byName = this.#table.forPath(path);
    const reader = byName === undefined ? undefined : this.#byGrammar.get(byName);
    if (byName === undefined || !reader) return undefined;
    const grammar = text === undefined ? byName : reader.grammarOf?.(byName, path, text) ?? byName;
    return { reader, grammar };
  }
}
