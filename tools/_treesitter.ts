/**
 * tree-sitter for the code tools: grammars handed to it (a family declares
 * its own in its `family.ts`) and loaded lazily from the `.wasm` files
 * their npm packages ship, and parsed trees cached per worker by (path,
 * mtime, size) within a byte budget. Evicted and replaced trees are
 * deleted: web-tree-sitter frees wasm memory only on `delete()`.
 *
 * A cached tree stays valid until the next `parseFile` call may evict it, so
 * use it synchronously after the `await` that returned it. Concurrent calls
 * for the same version of a file share one parse (a second parse would
 * replace, and delete, the tree the first call is about to use), and an
 * evicted tree is deleted only after the current turn of the event loop.
 *
 * This layer knows no family: whoever composes the families makes the
 * service with the grammars they declare and puts it in a tool context's
 * shared values under {@linkcode TREE_SITTER_SERVICE} (the tool worker
 * does, at start-up), where {@linkcode treeSitter} finds it.
 *
 * @module
 */

import { Edit, Language, Parser, type Tree } from "web-tree-sitter";
import type { ResolvedPath } from "../security/resolver.ts";
import { type GrammarAsset, RUNTIME_WASM } from "./family.ts";
import { type Grammar, GrammarTable } from "./_grammar_table.ts";
import type { ToolContext } from "./tool.ts";

export type { Grammar } from "./_grammar_table.ts";
export { MAX_NESTING, tooDeep } from "./_nesting.ts";

/** A parsed file. */
export interface Parsed {
  /** The tree (owned by the cache: never delete it). */
  readonly tree: Tree;
  /** The text that was parsed. */
  readonly source: string;
  /** The grammar used. */
  readonly grammar: Grammar;
}

/** Default budget for cached trees, in bytes of source (trees cost ~10× their source). */
export const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;

/** The key of a tool context's shared values that holds the worker's {@linkcode TreeSitter}. */
export const TREE_SITTER_SERVICE = "tree-sitter";

/** Options for {@linkcode TreeSitter}. */
export interface TreeSitterOptions {
  /** The grammars it parses with (a family declares its own in its `family.ts`). */
  grammars: readonly GrammarAsset[];
  /** Cache budget in bytes of source (default {@linkcode DEFAULT_CACHE_BYTES}). */
  budget?: number;
}

interface Entry {
  key: string;
  tree: Tree;
  source: string;
  grammar: Grammar;
}

/** Per-worker tree-sitter: lazy grammars, an LRU of parsed trees. */
export class TreeSitter {
  #init: Promise<void> | undefined;
  #languages = new Map<Grammar, Promise<Language>>();
  #parsers = new Map<Grammar, Parser>();
  #cache = new Map<string, Entry>();
  #parsing = new Map<string, Promise<Entry>>();
  #bytes = 0;
  #budget: number;
  #grammars: GrammarTable;

  /**
   * A tree-sitter service with nothing parsed yet.
   *
   * @param options The grammars it parses with, and its cache budget.
   */
  constructor(options: TreeSitterOptions) {
    this.#grammars = new GrammarTable(options.grammars);
    this.#budget = options.budget ?? DEFAULT_CACHE_BYTES;
  }

  /**
   * The grammar it parses a file with, by the file's extension.
   *
   * @param path A file name or path.
   * @returns The grammar, or `undefined` when it was handed none for that extension.
   */
  grammarFor(path: string): Grammar | undefined {
    return this.#grammars.forPath(path);
  }

  /**
   * Parse a checked file, from the cache when its (path, mtime, size) is unchanged.
   *
   * @param resolved The checked path (its `info` gives mtime and size).
   * @param source The file's text.
   * @param grammar The grammar.
   * @returns The parsed file; use it before the next await.
   */
  async parseFile(resolved: ResolvedPath, source: string, grammar: Grammar): Promise<Parsed> {
    const key = `${resolved.path}\0${resolved.info?.mtime?.getTime() ?? 0}\0${
      resolved.info?.size ?? 0
    }\0${grammar}`;
    const hit = this.#cache.get(key);
    if (hit && hit.source === source) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return hit;
    }
    const pending = this.#parsing.get(key);
    if (pending) {
      const shared = await pending;
      if (shared.source === source) return shared;
    }
    const parsing = this.parseText(source, grammar).then((tree) => {
      this.#forgetPath(resolved.path);
      const entry: Entry = { key, tree, source, grammar };
      this.#cache.set(key, entry);
      this.#bytes += source.length;
      this.#evict(entry);
      return entry;
    });
    this.#parsing.set(key, parsing);
    try {
      return await parsing;
    } finally {
      if (this.#parsing.get(key) === parsing) this.#parsing.delete(key);
    }
  }

  /**
   * Parse text without caching. The caller owns the tree and must `delete()` it.
   *
   * @param source The text.
   * @param grammar The grammar.
   * @returns The tree.
   */
  async parseText(source: string, grammar: Grammar): Promise<Tree> {
    const parser = await this.#parser(grammar);
    const tree = parser.parse(source);
    if (!tree) throw new Error(`tree-sitter returned no tree for a ${grammar} source`);
    return tree;
  }

  /**
   * Parse a text made from a parsed one by replacing some of its ranges,
   * reusing the old tree (tree-sitter's incremental parse: only what the
   * changes touch is parsed again; the tree is the one a fresh parse makes).
   * The old tree is left as it was. The caller owns the new tree and must
   * `delete()` it.
   *
   * @param old The old text's tree, and the old text.
   * @param source The new text.
   * @param changes Each replaced range of the old text (`start`, `end`) and the length of what replaced it, in order, none overlapping.
   * @param grammar The grammar.
   * @returns The new text's tree.
   */
  async parseEdited(
    old: { tree: Tree; source: string },
    source: string,
    changes: ReadonlyArray<{ start: number; end: number; length: number }>,
    grammar: Grammar,
  ): Promise<Tree> {
    // Copied before the await: the cache may delete its tree once this turn ends.
    const edited = old.tree.copy();
    try {
      const parser = await this.#parser(grammar);
      const starts = [0];
      for (let i = 0; i < old.source.length; i++) if (old.source[i] === "\n") starts.push(i + 1);
      const point = (index: number) => {
        const row = starts.findLastIndex((start) => start <= index);
        return { row, column: index - starts[row]! };
      };
      // The last change first: the ranges before it keep their places in the text being edited.
      for (const { start, end, length } of [...changes].reverse()) {
        const startPosition = point(start);
        edited.edit(
          new Edit({
            startIndex: start,
            oldEndIndex: end,
            newEndIndex: start + length,
            startPosition,
            oldEndPosition: point(end),
            newEndPosition: { row: startPosition.row, column: startPosition.column + length },
          }),
        );
      }
      const tree = parser.parse(source, edited);
      if (!tree) throw new Error(`tree-sitter returned no tree for a ${grammar} source`);
      return tree;
    } finally {
      edited.delete();
    }
  }

  /** How many trees and source bytes the cache holds. */
  stats(): { trees: number; bytes: number } {
    return { trees: this.#cache.size, bytes: this.#bytes };
  }

  /** Delete every cached tree. */
  clear(): void {
    for (const entry of this.#cache.values()) entry.tree.delete();
    this.#cache.clear();
    this.#bytes = 0;
  }

  #forgetPath(path: string): void {
    for (const [key, entry] of this.#cache) {
      if (key.startsWith(`${path}\0`)) this.#drop(key, entry);
    }
  }

  #evict(keep: Entry): void {
    for (const [key, entry] of this.#cache) {
      if (this.#bytes <= this.#budget) break;
      if (entry !== keep) this.#drop(key, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    this.#cache.delete(key);
    this.#bytes -= entry.source.length;
    // A call may still be using it in this turn (it got the tree just before an await ended).
    setTimeout(() => entry.tree.delete(), 0);
  }

  async #parser(grammar: Grammar): Promise<Parser> {
    const ready = this.#parsers.get(grammar);
    if (ready) return ready;
    const language = await this.#language(grammar);
    const parser = this.#parsers.get(grammar) ?? new Parser();
    parser.setLanguage(language);
    this.#parsers.set(grammar, parser);
    return parser;
  }

  #language(grammar: Grammar): Promise<Language> {
    let language = this.#languages.get(grammar);
    if (!language) {
      language = (async () => {
        this.#init ??= (async () => {
          await Parser.init({ wasmBinary: await Deno.readFile(RUNTIME_WASM) } as never);
        })();
        await this.#init;
        const declared = this.#grammars.get(grammar);
        if (!declared) {
          throw new TypeError(
            `Cannot parse with grammar "${grammar}": it was not handed to the parser`,
          );
        }
        return await Language.load(await Deno.readFile(declared.wasm));
      })();
      this.#languages.set(grammar, language);
    }
    return language;
  }
}

/**
 * The worker's tree-sitter service: the one its composer put in the tool
 * context's shared values, with the grammars the families declare.
 *
 * @param ctx The tool context.
 * @returns The shared instance.
 * @throws {TypeError} When the context was handed no tree-sitter service.
 */
export function treeSitter(ctx: ToolContext): TreeSitter {
  const service = ctx.shared<TreeSitter | undefined>(TREE_SITTER_SERVICE, () => undefined);
  if (!service) {
    throw new TypeError(
      `Cannot parse: the tool context has no "${TREE_SITTER_SERVICE}" service; whoever composes the families must put one in its shared values`,
    );
  }
  return service;
}
