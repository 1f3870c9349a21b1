/**
 * The TS/JS resolver behind `find_usages` and `rename_symbol`: the
 * TypeScript language service, the reference implementation of both
 * languages (declaration merging, namespace imports and `export *` chains,
 * re-export aliases, default exports, CommonJS through `allowJs`, members
 * through declared and inferred types). A name is found as the checker binds
 * it; its sites are `findReferences`'s, in the scope's files, all exact.
 * `bench/README.md` has the comparison with the tree-sitter resolver it
 * replaced.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { LanguageResolver, SymbolSites, SymbolTarget } from "../symbols/_resolver.ts";
import type { Skipped } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";
import { JS_EXTENSIONS, scopeService, TS_SOURCE } from "./_service_host.ts";
import { findDeclarations, spanned, topLevelNames } from "./_service_lookup.ts";
import { lineOf, referenceSites, renameSites } from "./_service_sites.ts";
import { renameBreaks } from "./_service_check.ts";

/** The TS/JS resolver. */
export const TS_SERVICE_RESOLVER: LanguageResolver = Object.freeze({
  language: "TypeScript/JavaScript",
  extensions: JS_EXTENSIONS,
  invalidName: invalidJsName,
  findSites: findServiceSites,
});

/**
 * Find a TS/JS symbol and every site that refers to it under a scope.
 *
 * @param ctx The tool context.
 * @param target The file and dotted name.
 * @param scope The directory searched (a model path).
 * @param skipped Counts files that could not be read.
 * @returns The definition and the sites, the definition first.
 * @throws {ToolError} `not_found` when the file does not define the name.
 */
async function findServiceSites(
  ctx: ToolContext,
  target: SymbolTarget,
  scope: string,
  skipped: Skipped,
): Promise<SymbolSites> {
  if (!/^[\p{L}\p{N}_$#]+(?:\.[\p{L}\p{N}_$#]+)*$/u.test(target.name)) {
    throw new ToolError("invalid_argument", `Cannot look up "${target.name}": not a dotted name`);
  }
  const resolved = await ctx.fs.resolve(target.path, "file");
  if (!TS_SOURCE.test(resolved.path)) {
    throw new ToolError("invalid_argument", `Cannot read "${resolved.display}" as TS/JS source`);
  }
  const scoped = await scopeService(ctx, scope, skipped);
  if (!scoped.files.has(resolved.path)) {
    throw new ToolError(
      "invalid_argument",
      `"${resolved.display}" is not under the scope "${scope}": give a scope that holds it`,
    );
  }
  const program = scoped.service.getProgram();
  const file = program?.getSourceFile(resolved.path);
  if (!program || !file) {
    throw new ToolError("unsupported", `Cannot resolve names in "${resolved.display}"`);
  }
  const declarations = findDeclarations(scoped.ts, program.getTypeChecker(), file, target.name);
  const first = declarations[0];
  if (!first) {
    throw new ToolError(
      "not_found",
      `Cannot find "${target.name}" in "${resolved.display}" (top-level names: ${
        topLevelNames(scoped.ts, program.getTypeChecker(), file)
      })`,
    );
  }
  const names = declarations.map((each) => each.name);
  const sites = referenceSites(scoped, program, names, target.name);
  const span = spanned(scoped.ts, first.node);
  const shown = scoped.files.get(span.getSourceFile().fileName)?.display ?? resolved.display;
  return {
    definition: `${shown}:${lineOf(span.getSourceFile(), span.getStart())}-${
      lineOf(span.getSourceFile(), span.getEnd())
    }`,
    sites,
    filesSearched: scoped.files.size,
    renameSites: () => renameSites(scoped, program, names, sites),
    renameBreaks: (edits) => renameBreaks(scoped, target.name.split(".").at(-1)!, edits),
  };
}

/** Words that cannot name a binding in strict code (ES2024, and TypeScript's own). */
const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with implements interface let package private protected " +
    "public static yield await arguments eval").split(" "),
);

/**
 * Why a name cannot be a TS/JS identifier, or undefined when it can.
 *
 * @param name The proposed name.
 * @returns The reason, or undefined.
 */
export function invalidJsName(name: string): string | undefined {
  const bare = name.startsWith("#") ? name.slice(1) : name;
  if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(bare)) {
    return "it is not a JavaScript identifier";
  }
  return RESERVED.has(bare) ? `"${bare}" is a reserved word` : undefined;
}
