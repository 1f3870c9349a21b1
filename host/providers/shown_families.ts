/**
 * Which tool families are listed: a family that parses a language (it
 * declares grammars) appears once the roots hold a file of that language,
 * as a tool worker found at start (`detect_languages`) or a call touched
 * since; the others always are. `toolhost.json` can force a family on or
 * off, and `tools.enabled` lists exactly its tools. The host only sees the
 * paths a worker gives it: it never lists a project directory itself.
 *
 * @module
 */

import { extensionOf, type ToolFamily } from "../../tools/family.ts";
import type { ToolSettings } from "../config/mod.ts";

/**
 * How a family's marker is kept among the extensions: with a leading `/` (an
 * extension starts with a dot).
 *
 * @param marker The entry's name at the top of a root.
 * @returns Its key.
 */
export function markerKey(marker: string): string {
  return `/${marker}`;
}

/** Which families are listed, and the extensions that would list the rest. */
export class ShownFamilies {
  #forced: Readonly<Record<string, boolean>>;
  /** Extension → the families it shows, for families that wait for their language. */
  #waiting = new Map<string, string[]>();
  /** Every family in {@linkcode ShownFamilies.#waiting}'s lists (fixed once made). */
  #waitingFamilies = new Set<string>();
  #present = new Set<string>();
  #listeners = new Set<() => void>();

  /**
   * @param families Every family.
   * @param settings The `tools` section: forced families, and `enabled` (which lists exactly its tools).
   */
  constructor(families: readonly ToolFamily[], settings: ToolSettings) {
    this.#forced = settings.families ?? {};
    if (settings.enabled !== undefined) return;
    for (const family of families) {
      if (this.#forced[family.name] !== undefined) continue;
      const keys = (family.grammars ?? []).flatMap((grammar) => grammar.extensions);
      if (family.marker !== undefined) keys.push(markerKey(family.marker));
      for (const key of keys) {
        this.#waiting.set(key, [...(this.#waiting.get(key) ?? []), family.name]);
        this.#waitingFamilies.add(family.name);
      }
    }
  }

  /**
   * Whether a family's tools are listed.
   *
   * @param family The family's name (`undefined` for tools of none: listed).
   * @returns True when listed.
   */
  listed(family: string | undefined): boolean {
    if (family === undefined) return true;
    const forced = this.#forced[family];
    if (forced !== undefined) return forced;
    return this.#present.has(family) || !this.#waitingFamilies.has(family);
  }

  /**
   * Whether a family's tools may be called: unless config switched it off
   * (a family waiting for its language answers calls all the same).
   *
   * @param family The family's name.
   * @returns True when callable.
   */
  callable(family: string | undefined): boolean {
    return family === undefined || this.#forced[family] !== false;
  }

  /** The extensions whose files, and the markers (`/.git`) whose entries, would list a family not listed yet. */
  pending(): string[] {
    return [...this.#waiting.entries()]
      .filter(([, families]) => families.some((family) => !this.#present.has(family)))
      .map(([extension]) => extension);
  }

  /**
   * Take note of files that exist in the roots (a worker found or touched
   * them): the families of their languages are listed from now on, and the
   * listeners are told when that changed the list.
   *
   * @param paths Paths or names of files.
   */
  notice(paths: Iterable<string>): void {
    const extensions: string[] = [];
    for (const path of paths) {
      const extension = extensionOf(path);
      if (extension !== undefined) extensions.push(extension);
    }
    this.found(extensions);
  }

  /**
   * Take note of extensions found in the roots (as {@linkcode notice}).
   *
   * @param extensions Lower-case extensions with the dot.
   */
  found(extensions: Iterable<string>): void {
    let changed = false;
    for (const extension of extensions) {
      for (const family of this.#waiting.get(extension) ?? []) {
        if (this.#present.has(family)) continue;
        this.#present.add(family);
        changed = true;
      }
    }
    if (changed) { for (const listener of this.#listeners) listener(); }
  }

  /**
   * Be told when a family appears.
   *
   * @param listener The listener.
   * @returns A function that stops it.
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
