/**
 * The `#include` graph of the C/C++ files under a scope, read from each
 * file's `#include` lines (every branch of a conditional counts, as the
 * parser sees them all): which file an include names, what a file sees
 * (itself and what it includes, transitively), and which files include it.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { SourceFile } from "../symbols/_source_index.ts";
import { memoized } from "../symbols/_memo.ts";
import { addTo } from "../symbols/_multimap.ts";

const INCLUDE = /^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)/gm;

/** The include graph of some files. */
export class IncludeGraph {
  #files: ReadonlyMap<string, SourceFile<unknown>>;
  #root: string;
  #byName: Map<string, string[]> | undefined;
  #resolved = new Map<string, string | undefined>();
  #direct = new Map<string, string[]>();
  #closures = new Map<string, Set<string>>();
  #includedBy: Map<string, string[]> | undefined;

  /**
   * The graph of some files.
   *
   * @param files The files, by real path.
   * @param root The scope's real path (where angle includes are looked for).
   */
  constructor(files: ReadonlyMap<string, SourceFile<unknown>>, root: string) {
    this.#files = files;
    this.#root = root;
  }

  /**
   * The file an `#include` names: a quoted one beside the including file,
   * then from the scope (and its `include/`); an angle one from the scope;
   * else the one file of the scope whose path ends with it.
   *
   * @param from The including file.
   * @param spec What is between the quotes or brackets.
   * @param angle `<…>`.
   * @returns The file's real path, or undefined (a system header, or not under the scope).
   */
  resolve(from: string, spec: string, angle: boolean): string | undefined {
    const key = `${angle ? "" : posix.dirname(from)}\0${angle}\0${spec}`;
    if (this.#resolved.has(key)) return this.#resolved.get(key);
    const dirs = angle
      ? [this.#root, `${this.#root}/include`]
      : [posix.dirname(from), this.#root, `${this.#root}/include`];
    const found = dirs.map((dir) => posix.normalize(`${dir}/${spec}`))
      .find((path) => this.#files.has(path)) ?? this.#bySuffix(spec);
    this.#resolved.set(key, found);
    return found;
  }

  /**
   * Every file a file sees: itself and what it includes, transitively.
   *
   * @param file The file's real path.
   * @returns The files.
   */
  closure(file: string): Set<string> {
    return memoized(this.#closures, file, () => reach(file, (path) => this.#includes(path)));
  }

  /**
   * The files that include a file, directly or not.
   *
   * @param file The file's real path.
   * @returns The files.
   */
  includers(file: string): Set<string> {
    if (!this.#includedBy) {
      this.#includedBy = new Map();
      for (const path of this.#files.keys()) {
        for (const target of this.#includes(path)) {
          addTo(this.#includedBy, target, path);
        }
      }
    }
    const includedBy = this.#includedBy;
    const seen = reach(file, (path) => includedBy.get(path) ?? []);
    seen.delete(file);
    return seen;
  }

  /** A file's includes that name files of the scope. */
  #includes(file: string): string[] {
    const known = this.#direct.get(file);
    if (known) return known;
    const out: string[] = [];
    for (const match of this.#files.get(file)?.text.matchAll(INCLUDE) ?? []) {
      const path = this.resolve(file, match[1] ?? match[2]!, match[1] === undefined);
      if (path) out.push(path);
    }
    this.#direct.set(file, out);
    return out;
  }

  /** The one file of the scope whose path ends with `spec`. */
  #bySuffix(spec: string): string | undefined {
    if (!this.#byName) {
      this.#byName = new Map();
      for (const path of this.#files.keys()) {
        addTo(this.#byName, posix.basename(path), path);
      }
    }
    const clean = posix.normalize(spec).replace(/^(\.\.?\/)+/, "");
    const matches = (this.#byName.get(posix.basename(clean)) ?? []).filter((path) =>
      path.endsWith(`/${clean}`)
    );
    return matches.length === 1 ? matches[0] : undefined;
  }
}

/** Every file reached from `start` through `next`, breadth first, `start` first. */
function reach(start: string, next: (path: string) => readonly string[]): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const path of next(queue.shift()!)) {
      if (!seen.has(path)) {
        seen.add(path);
        queue.push(path);
      }
    }
  }
  return seen;
}
