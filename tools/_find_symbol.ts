/**
 * Finding one symbol of a file by the name a model gave: an exact
 * qualified name, else a unique suffix; definitions over prototypes, an
 * implementation over its overload signatures; candidates named when there
 * is no one answer. Shared by the definition tools of every language.
 *
 * @module
 */

import { ToolError } from "../security/errors.ts";
import type { IndexedSymbol } from "./_symbols.ts";

/** What name lookup needs of a symbol. */
export type Named = Pick<IndexedSymbol, "kind" | "qualified" | "startLine" | "bodyIndex">;

/**
 * Find one symbol by name: an exact qualified name, else a unique one whose
 * qualified name ends with it (`Class::method` finds `ns::Class::method`).
 * Definitions win over prototypes of the same name, and an implementation
 * over its overload signatures.
 *
 * @param symbols Every symbol of the file.
 * @param name The name asked for.
 * @param separator `::` or `.`.
 * @param display The file, for messages.
 * @returns The symbol.
 * @throws {ToolError} `not_found` or `ambiguous_match`, listing candidates.
 */
export function findSymbol<T extends Named>(
  symbols: readonly T[],
  name: string,
  separator: string,
  display: string,
): T {
  const wanted = name.trim();
  let matches = symbols.filter((symbol) => symbol.qualified === wanted);
  if (matches.length === 0) {
    matches = symbols.filter((symbol) => symbol.qualified.endsWith(`${separator}${wanted}`));
  }
  const found = matches.length > 1 ? preferred(matches) : matches[0];
  if (found) return found;
  if (matches.length > 1) {
    throw new ToolError(
      "ambiguous_match",
      `"${wanted}" matches ${matches.length} symbols in "${display}": ${
        listed(matches)
      }; use a qualified name`,
    );
  }
  const last = wanted.split(separator).at(-1)!;
  const near = symbols.filter((symbol) =>
    symbol.qualified.split(separator).at(-1)!.toLowerCase().includes(last.toLowerCase())
  );
  throw new ToolError(
    "not_found",
    `No symbol "${wanted}" in "${display}".${
      near.length ? ` Similar: ${listed(near)}` : ` It has: ${listed(symbols)}`
    }`,
  );
}

/** Of several symbols with one name, the one definition, or the one implementation of overloads. */
function preferred<T extends Named>(matches: readonly T[]): T | undefined {
  const definitions = matches.filter((symbol) => symbol.kind !== "prototype");
  if (definitions.length === 1) return definitions[0]!;
  // TypeScript overloads: the one signature with a body is the implementation.
  const bodies = definitions.filter((symbol) => symbol.bodyIndex !== undefined);
  if (bodies.length === 1 && bodies[0]!.kind !== "class") return bodies[0]!;
  return undefined;
}

/** Candidates listed in an error, at most 30. */
function listed(symbols: readonly Named[]): string {
  return symbols.slice(0, 30).map((symbol) =>
    `${symbol.qualified} (${symbol.kind}, line ${symbol.startLine})`
  ).join(", ");
}
