/**
 * The C/C++ resolver for `find_usages` and `rename_symbol`: per-file facts
 * from tree-sitter (includes, declarations with linkage and qualified
 * names, tokens with their context), kept per worker by file version, and
 * resolved by translation unit: a name declared in a header is the same
 * symbol in every file that includes it and in the file that defines it.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type { LanguageResolver, SymbolSites, SymbolTarget } from "../symbols/_resolver.ts";
import type { Skipped } from "../_skipped.ts";
import { treeSitter } from "../_treesitter.ts";
import { errorCount } from "../_diagnostics.ts";
import type { ToolContext } from "../tool.ts";
import { type SourceFile, SourceIndex } from "../symbols/_source_index.ts";
import { type FactsOr, openSources, resolveRounds, symbolSites } from "../symbols/_source_sites.ts";
import { headerGrammar, maskForParsing } from "./_parse.ts";
import type { CFacts } from "./_resolve_facts.ts";
import { CProgram } from "./_resolve_program.ts";
import { cConflicts, invalidCName } from "./_resolve_rename.ts";
import { cSites } from "./_resolve_sites.ts";
import { findCTarget } from "./_resolve_target.ts";
import { extractCFacts } from "./_resolve_walk.ts";

/** The extensions the resolver reads. */
export const C_EXTENSIONS: readonly string[] = Object.freeze([
  ".c",
  ".h",
  ".cc",
  ".cpp",
  ".cxx",
  ".c++",
  ".hpp",
  ".hh",
  ".hxx",
  ".h++",
  ".ipp",
]);

const SOURCE = /\.(?:c|h|cc|cpp|cxx|c\+\+|hpp|hh|hxx|h\+\+|ipp)$/i;

/** The memory a token's facts take, roughly (occurrence, context share, indexes). */
const BYTES_PER_TOKEN = 300;

/** The C/C++ resolver. */
export const CFAMILY_RESOLVER: LanguageResolver = Object.freeze({
  language: "C/C++",
  extensions: C_EXTENSIONS,
  invalidName: invalidCName,
  findSites: findCSites,
});

/**
 * Find a C/C++ symbol and every site that refers to it under a scope.
 *
 * @param ctx The tool context.
 * @param target The file and qualified name (`f`, `point.x`, `ns::Widget::draw`).
 * @param scope The directory searched (a model path).
 * @param skipped Counts files that could not be read or parsed.
 * @returns The definition and the sites, the definition first.
 * @throws {ToolError} `not_found` when no such declaration is found.
 */
async function findCSites(
  ctx: ToolContext,
  target: SymbolTarget,
  scope: string,
  skipped: Skipped,
): Promise<SymbolSites> {
  if (!/^[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*$/.test(target.name)) {
    throw new ToolError(
      "invalid_argument",
      `Cannot look up "${target.name}": not a qualified name`,
    );
  }
  const index = ctx.shared("cfamily-symbol-index", () => new SourceIndex<FactsOr<CFacts>>(weigh));
  const opened = await openSources(ctx, index, {
    path: target.path,
    scope,
    name: target.name.split(/::|\./).at(-1)!,
    source: SOURCE,
    language: "C/C++",
    make: (file) => parseFacts(ctx, file),
    skipped,
  });
  const program = new CProgram(opened.files, opened.root);
  const { found, raw } = await resolveRounds(
    ctx,
    program,
    () => {
      const found = findCTarget(program, opened.file.path, target.name, opened.candidates);
      return { found, raw: cSites(program, found, opened.candidates) };
    },
    (file) => parseFacts(ctx, file),
    skipped,
  );
  return {
    ...symbolSites(program, opened, found, raw, { target: target.name, kind: "declaration" }),
    renameConflicts: (newName) => cConflicts(program, found, raw, newName),
  };
}

/** About what a file's facts take in memory. */
function weigh(facts: FactsOr<CFacts>): number {
  return "error" in facts ? 0 : facts.occs.length * BYTES_PER_TOKEN;
}

/** One file's facts, from the better of its plain and masked parses. */
async function parseFacts(ctx: ToolContext, file: SourceFile<unknown>): Promise<CFacts> {
  const ts = treeSitter(ctx);
  const byExtension = ts.grammarFor(file.path) === "cpp" ? "cpp" : "c";
  const grammar = headerGrammar(byExtension, file.path, file.text);
  let tree = await ts.parseText(file.text, grammar);
  try {
    const masked = tree.rootNode.hasError ? maskForParsing(file.text) : undefined;
    if (masked !== undefined) {
      const other = await ts.parseText(masked, grammar);
      if (errorCount(other) < errorCount(tree)) {
        tree.delete();
        tree = other;
      } else other.delete();
    }
    return extractCFacts(tree, grammar === "cpp");
  } finally {
    tree.delete();
  }
}
