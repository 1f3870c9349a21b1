/**
 * A tool family: the tools of one folder and what the host must know of
 * them, declared next to them (in the folder's `family.ts`) rather than in
 * lists elsewhere. The declaration is light: the host reads it without
 * loading the tools' code, which only the process that runs them loads.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { ResolvedPath } from "../security/resolver.ts";
import type { ToolIcon } from "./icons.ts";
import type { Tool, ToolContext } from "./tool.ts";

/**
 * web-tree-sitter's runtime, which every declared grammar runs on: read by
 * the tool workers and included by `compile`, like the grammars.
 */
export const RUNTIME_WASM: URL = new URL(
  "../node_modules/web-tree-sitter/web-tree-sitter.wasm",
  import.meta.url,
);

/** A tree-sitter grammar a family parses with. */
export interface GrammarAsset {
  /** Its name (`python`, `tsx`). */
  readonly name: string;
  /** The file extensions it parses, lower case, with the dot. */
  readonly extensions: readonly string[];
  /** Its `.wasm`, as its npm package ships it (read by the tool workers, included by `compile`). */
  readonly wasm: URL;
}

/** What the host must know of a family of tools. */
export interface ToolFamily {
  /** Its name (the folder's). */
  readonly name: string;
  /** Where its tools run: a tool worker (they read project files) or the host (they read host state). */
  readonly runs: "worker" | "host";
  /** The icon clients draw beside its tools (one of `ICONS` in `icons.ts`). */
  readonly icon: ToolIcon;
  /**
   * The grammars its tools parse with. A family with grammars is listed only
   * where the roots hold a file of one of their extensions (or config says so).
   */
  readonly grammars?: readonly GrammarAsset[];
  /**
   * Other files outside the roots its tools read (a compiler and its
   * library): the tool workers may read them, and `compile` includes them.
   */
  readonly assets?: readonly URL[];
  /** Its tools parse code: a call goes to the first worker when that one is free (its caches are warm). */
  readonly prefersCodeWorker?: boolean;
  /** The arguments that name a file the call reads or changes (stale-read protection checks them). */
  readonly pathArgs?: readonly string[];
  /** False when its calls are never mirrored to efferent-copy peers (the observation tools). */
  readonly mirrored?: boolean;
  /**
   * What its tools run (host-side families): listed only where the sandbox
   * runs programs (`tools/sandbox.ts`) and finds each of these on its PATH.
   */
  readonly runsPrograms?: readonly string[];
  /**
   * Its tools reach the network (host-side families): listed only where the
   * host gives them the network service (`net` is not false).
   */
  readonly reachesNetwork?: boolean;
  /**
   * An entry that must be at the top of a root for the family to be listed
   * (`.git`: the git tools where a root is a repository), as a tool worker
   * found at start; config can force the family on.
   */
  readonly marker?: string;
  /**
   * The longest a call of its tools may take, in ms, when its programs' own
   * time limits add up to more than a call's (`callTimeoutMs`): given the
   * sandbox's time limits for a shell command, in seconds.
   */
  readonly callLimitMs?: (timeoutS: { readonly default: number; readonly max: number }) => number;
}

/**
 * Declare a family (a typed identity: the declaration is frozen).
 *
 * @param family The declaration.
 * @returns The same declaration, frozen.
 * @throws {TypeError} When a grammar has no extension.
 */
export function defineFamily(family: ToolFamily): ToolFamily {
  for (const grammar of family.grammars ?? []) {
    if (grammar.extensions.length === 0) {
      throw new TypeError(`Cannot declare grammar "${grammar.name}": it parses no extension`);
    }
  }
  return Object.freeze({ ...family });
}

/**
 * A file name's extension as grammars declare them: lower case, with the dot.
 *
 * @param name The file's name or path.
 * @returns The extension, or `undefined` when it has none (`Makefile`, `.bashrc`).
 */
export function extensionOf(name: string): string | undefined {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : undefined;
}

/** A file a {@linkcode LanguageReader} summarizes: where it is, its text, and its lines. */
export interface SourceText {
  /** The checked path. */
  readonly resolved: ResolvedPath;
  /** The file's text. */
  readonly text: string;
  /** Its lines, without their ends. */
  readonly lines: readonly string[];
}

/** A function bound to a name (`const f = () => …`): the name, and the function's body. */
export interface FunctionValue {
  /** The name it is bound to. */
  readonly name: string;
  /** Its body, if it has one. */
  readonly body: Node | null;
}

/** How a language's definitions and calls look in its syntax trees (for `derive_code_path`). */
export interface CallSyntax {
  /** Node types that define a function or method (named by `definitionName`). */
  readonly definitions: ReadonlySet<string>;
  /** Node types whose `name` field scopes the definitions inside them (classes, namespaces). */
  readonly scopes: ReadonlySet<string>;
  /** Node types of calls (named by `callee`). */
  readonly calls: ReadonlySet<string>;
  /**
   * A definition's name, as written (`A::f` for an out-of-line C++ method).
   *
   * @param node A node of one of the `definitions` types.
   * @returns The name, or `undefined` for a definition without one.
   */
  definitionName(node: Node): string | undefined;
  /**
   * The name a call calls: `f` in `a.b.f()`.
   *
   * @param call A node of one of the `calls` types.
   * @returns The name, or `undefined` when the callee is no name (`f()()`).
   */
  callee(call: Node): string | undefined;
  /**
   * A function bound to a name, for languages that have them (`const f = () => …`).
   *
   * @param node Any node.
   * @returns The name and body, or `undefined` when the node binds no function.
   */
  functionValue?(node: Node): FunctionValue | undefined;
}

/**
 * What a family that reads a programming language gives the tools that
 * read every language (`get_file_summary`, `derive_code_path`): a language
 * these tools know is one a family declares, and only that.
 */
export interface LanguageReader {
  /** The grammars it reads, as its family declares them (their extensions say which files). */
  readonly grammars: readonly GrammarAsset[];
  /** How its definitions and calls look. */
  readonly calls: CallSyntax;
  /**
   * The kind `get_file_summary` reports.
   *
   * @param grammar One of its grammars' names.
   * @returns The kind (`python`, `javascript/tsx`).
   */
  kind(grammar: string): string;
  /**
   * The grammar a file is read with, when its text says more than its
   * extension (a `.h` header written in C++).
   *
   * @param grammar The grammar its extension gives.
   * @param path The file's path.
   * @param text The file's text.
   * @returns One of its grammars' names.
   */
  grammarOf?(grammar: string, path: string, text: string): string;
  /**
   * Parse a text for the call index.
   *
   * @param ctx The tool context.
   * @param text The text.
   * @param grammar One of its grammars' names.
   * @returns The tree, which the caller deletes.
   */
  parse(ctx: ToolContext, text: string, grammar: string): Promise<Tree>;
  /**
   * A file's summary: sections by name (`imports`, `functions`), each a list of lines.
   *
   * @param ctx The tool context.
   * @param file The file.
   * @param grammar One of its grammars' names.
   * @returns The sections, in the order they are shown.
   */
  summarize(
    ctx: ToolContext,
    file: SourceText,
    grammar: string,
  ): Promise<Record<string, string[]>>;
}

/**
 * A family's code, as the process that runs its tools loads it (from the
 * family's `mod.ts`): its tools, and the languages it reads. A family whose
 * tools read every language makes them from the languages of all the
 * families that run beside it.
 */
export interface FamilyCode {
  /** Its tools, or what makes them from every language the process's families read. */
  readonly tools: readonly Tool[] | ((languages: readonly LanguageReader[]) => readonly Tool[]);
  /** The languages it reads. */
  readonly languages?: readonly LanguageReader[];
}
