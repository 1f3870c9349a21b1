/**
 * The TypeScript/JavaScript resolver for `find_usages` and `rename_symbol`:
 * per-file facts from tree-sitter (scopes, ES and CommonJS imports and
 * exports, classes and their members), kept per worker by file version,
 * resolved across the files under a scope for the one symbol a model names.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { LanguageResolver, SymbolSites, SymbolTarget } from "../symbols/_resolver.ts";
import type { Skipped } from "../_skipped.ts";
import { grammarForPath, treeSitter } from "../_treesitter.ts";
import type { ToolContext } from "../tool.ts";
import type { JsFacts } from "./_resolve_facts.ts";
import { type SourceFile, SourceIndex } from "../symbols/_source_index.ts";
import { JsProgram } from "./_resolve_program.ts";
import { invalidJsName, jsConflicts } from "./_resolve_rename.ts";
import { memberSites } from "./_resolve_members.ts";
import { bindingSites } from "./_resolve_sites.ts";
import { type FactsOr, openSources, resolveRounds, symbolSites } from "../symbols/_source_sites.ts";
import { findTarget } from "./_resolve_target.ts";
import { extractJsFacts } from "./_resolve_walk.ts";

/** The extensions the resolver reads. */
export const JS_EXTENSIONS: readonly string[] = Object.freeze([
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
]);

const SOURCE = /\.(?:[mc]?[jt]sx?)$/i;

/** The memory a token's facts take, roughly (occurrence, declaration share, indexes). */
const BYTES_PER_TOKEN = 300;

/** The TS/JS resolver. */
export const TYPESCRIPT_RESOLVER: LanguageResolver = Object.freeze({
  language: "TypeScript/JavaScript",
  extensions: JS_EXTENSIONS,
  invalidName: invalidJsName,
  findSites: findJsSites,
});

/**
 * The worker's index of TS/JS files and their facts.
 *
 * @param ctx The tool context.
 * @returns The shared index.
 */
export function jsIndex(ctx: ToolContext): SourceIndex<FactsOr<JsFacts>> {
  return ctx.shared("typescript-symbol-index", () => new SourceIndex<FactsOr<JsFacts>>(weigh));
}

/** About what a file's facts take in memory (measured: some 300 bytes a token). */
function weigh(facts: FactsOr<JsFacts>): number {
  return "error" in facts ? 0 : facts.occs.length * BYTES_PER_TOKEN;
}

/**
 * Find a TS/JS symbol and every site that refers to it under a scope.
 *
 * @param ctx The tool context.
 * @param target The file and dotted name.
 * @param scope The directory searched (a model path).
 * @param skipped Counts files that could not be read or parsed.
 * @returns The definition and the sites, the definition first.
 * @throws {ToolError} `not_found` when the file does not define the name.
 */
async function findJsSites(
  ctx: ToolContext,
  target: SymbolTarget,
  scope: string,
  skipped: Skipped,
): Promise<SymbolSites> {
  if (!/^[\p{L}\p{N}_$#]+(?:\.[\p{L}\p{N}_$#]+)*$/u.test(target.name)) {
    throw new ToolError("invalid_argument", `Cannot look up "${target.name}": not a dotted name`);
  }
  const opened = await openSources(ctx, jsIndex(ctx), {
    path: target.path,
    scope,
    name: target.name.split(".").at(-1)!,
    source: SOURCE,
    language: "TS/JS",
    make: (file) => parseFacts(ctx, file),
    skipped,
  });
  const program = new JsProgram(opened.files);
  const { found, raw } = await resolveRounds(
    ctx,
    program,
    () => {
      const found = findTarget(program, opened.file.path, target.name);
      const raw = found.kind === "binding"
        ? bindingSites(program, found, opened.candidates)
        : memberSites(program, found, opened.candidates);
      return { found, raw };
    },
    (file) => parseFacts(ctx, file),
    skipped,
  );
  return {
    ...symbolSites(program, opened, found, raw, { target: target.name, kind: "definition" }),
    renameConflicts: (newName) => jsConflicts(program, found, raw, newName),
  };
}

/** One file's facts. */
async function parseFacts(ctx: ToolContext, file: SourceFile<unknown>): Promise<JsFacts> {
  const tree = await treeSitter(ctx).parseText(file.text, grammarForPath(file.path) ?? "tsx");
  try {
    return extractJsFacts(tree);
  } finally {
    tree.delete();
  }
}
