/**
 * The block scopes of the C/C++ facts walker: the locals declared in each
 * (parameters, block variables, template parameters) with their types, so
 * that a name bound to one is never recorded as a token of a symbol.
 *
 * @module
 */

import type { TypeRef } from "./_resolve_facts.ts";

/** Block scopes, innermost last. */
export class BlockScopes {
  #locals: Array<Map<string, TypeRef | null>> = [];
  #blocks = 0;

  /** Inside a function (or a block): names declared now are locals. */
  get inBlock(): boolean {
    return this.#blocks > 0;
  }

  /**
   * Run `body` in a new scope.
   *
   * @param body What to walk in it.
   * @param isBlock False for a template's parameters: the templated declaration is not local.
   */
  run(body: () => void, isBlock: boolean): void {
    this.#locals.push(new Map());
    if (isBlock) this.#blocks++;
    try {
      body();
    } finally {
      this.#locals.pop();
      if (isBlock) this.#blocks--;
    }
  }

  /**
   * Declare a local in the innermost scope.
   *
   * @param name Its name.
   * @param type Its type, or null when unknown.
   */
  declare(name: string, type: TypeRef | null): void {
    this.#locals.at(-1)?.set(name, type);
  }

  /**
   * The local a name refers to here.
   *
   * @param name The name.
   * @returns Its type (null when unknown), or undefined when it is no local.
   */
  lookup(name: string): TypeRef | null | undefined {
    for (let i = this.#locals.length - 1; i >= 0; i--) {
      const found = this.#locals[i]!.get(name);
      if (found !== undefined || this.#locals[i]!.has(name)) return found ?? null;
    }
    return undefined;
  }
}
