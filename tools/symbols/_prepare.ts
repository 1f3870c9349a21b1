/**
 * What a host's first tool worker does at start, in the background: for
 * every root whose symbol index exists already (a word index in the state
 * directory: find_usages ran there before), each resolver that keeps an
 * index brings it up to date and reads back what it kept, so that the first
 * call after a restart finds it warm. A root never searched costs nothing.
 *
 * @module
 */

import { isOwnStateDir } from "../../security/state_marker.ts";
import type { ToolContext } from "../tool.ts";
import { RESOLVERS } from "./_resolvers.ts";
import { WORD_INDEX_FILE } from "./state_names.ts";

/**
 * Prepare the symbol indexes of the roots, when one exists in a state
 * directory the host made its own.
 *
 * @param ctx The tool context (a background one: no call's hooks).
 * @returns Whether there was one to prepare.
 */
export async function prepareSymbolIndexes(ctx: ToolContext): Promise<boolean> {
  try {
    Deno.statSync(`${ctx.policy.stateDir}/${WORD_INDEX_FILE}`);
  } catch {
    return false;
  }
  if (!isOwnStateDir(ctx.policy.stateDir)) return false;
  for (const root of ctx.policy.roots) {
    for (const resolver of RESOLVERS) await resolver.prepare?.(ctx, root);
  }
  return true;
}
