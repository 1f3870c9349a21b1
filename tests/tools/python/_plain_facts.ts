/**
 * Facts as a plain object, whatever made them: the parser's are plain, the
 * ones read back from the store decode each part at its first use (a class
 * with getters), and a deep comparison of the two must look at the parts.
 *
 * @module
 */

import type { PyFacts } from "../../../tools/python/_resolve_facts.ts";

/**
 * Every part of a file's facts (not the per-class attributes computed on use).
 *
 * @param facts Facts.
 * @returns A plain object of their parts.
 */
export function plainFacts(facts: PyFacts): Omit<PyFacts, "instanceAttrs"> {
  const { text, lineStarts, scopes, bindings, refsByName, attrs, attrsByName } = facts;
  const { attrByEnd, calls, imports, strings, allDynamic } = facts;
  return {
    text,
    lineStarts,
    scopes,
    bindings,
    refsByName,
    attrs,
    attrsByName,
    attrByEnd,
    calls,
    imports,
    strings,
    allDynamic,
  };
}
