/**
 * What a host's first tool worker does at start, in the background: for
 * every root whose symbol index exists already (a word index in the state
 * directory: find_usages ran there before), each resolver that keeps an
 * index brings it up to date and reads back what it kept, so that the first
 * call after a restart finds it warm. A root never searched costs nothing.
 *
 * @module
 */

import type { ToolContext } from "../tool.ts";
import { RESOLVERS } from "./_resolvers.ts";
import { WORD_INDEX_FILE } from "./_word_index.ts";

/** What was prepared. */
export interface Prepared {
  /** Source files under the roots, over every resolver that prepared. */
  readonly files: number;
  /** How long it took, in ms. */
  readonly ms: number;
}

/**
 * Prepare the symbol indexes of the roots, when one exists.
 *
 * @param ctx The tool context (a background one: no call's hooks).
 * @returns What was prepared, or `undefined` when no index exists yet.
 */
export async function prepareSymbolIndexes(ctx: ToolContext): Promise<Prepared | undefined> {
  try {
    Deno.statSync(`${ctx.policy.stateDir}/${WORD_INDEX_FILE}`);
  } catch {
    return undefined;
  }
  const started = performance.now();
  let files = 0;
  for (const root of ctx.policy.roots) {
    for (const resolver of RESOLVERS) {
      if (resolver.prepare) files += await resolver.prepare(ctx, root);
    }
  }
  return { files, ms: performance.now() - started };
}
