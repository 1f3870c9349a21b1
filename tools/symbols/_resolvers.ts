/**
 * The language resolvers `find_usages` and `rename_symbol` dispatch to, by
 * the extension of the file that defines the symbol. A new language is one
 * resolver and one line here (and its grammars in `family.ts`).
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { extensionOf } from "../family.ts";
import { PYTHON_RESOLVER } from "../python/_resolve.ts";
import { TS_SERVICE_RESOLVER } from "../typescript/_service.ts";
import { CFAMILY_RESOLVER } from "../cfamily/_resolve.ts";
import type { LanguageResolver } from "./_resolver.ts";

/** Every resolver. */
export const RESOLVERS: readonly LanguageResolver[] = Object.freeze([
  PYTHON_RESOLVER,
  TS_SERVICE_RESOLVER,
  CFAMILY_RESOLVER,
]);

/**
 * The resolver for a file.
 *
 * @param path The file's path (a model path is fine: only its extension counts).
 * @returns The resolver.
 * @throws {ToolError} `unsupported` when no resolver handles the extension.
 */
export function resolverFor(path: string): LanguageResolver {
  const extension = extensionOf(path);
  const found = RESOLVERS.find((each) => extension && each.extensions.includes(extension));
  if (found) return found;
  const known = RESOLVERS.flatMap((each) => each.extensions).join(", ");
  throw new ToolError(
    "unsupported",
    `Cannot resolve symbols in "${path}": supported files are ${known}`,
  );
}
