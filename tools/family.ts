/**
 * A tool family: the tools of one folder and what the host must know of
 * them, declared next to them (in the folder's `family.ts`) rather than in
 * lists elsewhere. The declaration is light: the host reads it without
 * loading the tools' code, which only the process that runs them loads.
 *
 * @module
 */

import type { ToolIcon } from "./icons.ts";

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
