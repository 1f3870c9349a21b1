/**
 * The Python resolver for `find_usages` and `rename_symbol`: tree-sitter
 * facts per file (kept per worker by version), scopes, imports, module
 * attributes, `__all__` and class members, resolved for the one symbol a
 * model names.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type {
  LanguageResolver,
  SymbolSite,
  SymbolSites,
  SymbolTarget,
} from "../symbols/_resolver.ts";
import { Skipped } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";
import { placeOf } from "../symbols/_lines.ts";
import { type LineCut, shownSite, sortSites, uniqueSites } from "../symbols/_sites.ts";
import { bindingsOf, PyLookup } from "./_resolve_lookup.ts";
import { invalidPythonName, pythonConflicts } from "./_resolve_rename.ts";
import { collectSites, type PySite, symbolNames } from "./_resolve_sites.ts";
import { findTarget } from "./_resolve_target.ts";
import { PyValues } from "./_resolve_values.ts";
import { type PyFile, PyWorld } from "./_resolve_world.ts";
import { answerStore } from "../symbols/_answer_store.ts";
import { pyIndex } from "./_resolve_index.ts";
import { answerKey, keptAnswer, type PyAnswer, stillHolds } from "./_resolve_kept.ts";

/** Python's resolver. */
export const PYTHON_RESOLVER: LanguageResolver = Object.freeze({
  language: "Python",
  extensions: Object.freeze([".py", ".pyi"]),
  invalidName: invalidPythonName,
  findSites: findPythonSites,
  prepare: preparePython,
});

/** Bring a root's word index and kept facts into memory (`LanguageResolver.prepare`). */
async function preparePython(ctx: ToolContext, root: string): Promise<void> {
  const scope = await ctx.fs.resolve(root, "directory");
  // The grammar compiles meanwhile (V8 compiles WebAssembly on its own threads).
  const parser = pyIndex(ctx).ready(ctx);
  await PyWorld.prepare(ctx, scope, new Skipped());
  await parser;
}

/**
 * Find a Python symbol and every site that refers to it under a scope.
 *
 * @param ctx The tool context.
 * @param target The file and dotted name.
 * @param scope The directory searched (a model path).
 * @param skipped Counts files that could not be read.
 * @returns The definition and the sites, the definition first.
 * @throws {ToolError} `not_found` when the file does not define the name.
 */
async function findPythonSites(
  ctx: ToolContext,
  target: SymbolTarget,
  scope: string,
  skipped: Skipped,
): Promise<SymbolSites> {
  const resolvedFile = await ctx.fs.resolve(target.path, "file");
  const resolvedScope = await ctx.fs.resolve(scope, "any");
  const world = await PyWorld.open(ctx, resolvedScope, skipped);
  const answers = answerStore<PyAnswer>(ctx, "python");
  const key = answerKey(ctx, resolvedScope.path, resolvedFile.path, target.name);
  const kept = target.rename || !resolvedScope.info?.isDirectory ? undefined : answers.get(key);
  if (kept && stillHolds(world, kept)) return recalled(world, kept);
  await pyIndex(ctx).ready(ctx);
  const before = skipped.count;
  world.widen([target.name.split(".").at(-1)!]);
  const file = world.file(resolvedFile.path);
  if (!file) {
    throw new ToolError(
      "invalid_argument",
      `Cannot read "${resolvedFile.display}" as Python source${noteOf(skipped)}`,
    );
  }
  const values = new PyValues(new PyLookup(world));
  const found = findTarget(values, file, target.name);
  // Sites spell the symbol's own name or an alias of it: take the files that hold one, until
  // the aliases they hold bring in no more.
  let more = world.widen([found.sym.name]);
  while (more > 0) more = world.widen(symbolNames(values, found.sym, world.files));
  const files = [...world.files];
  if (!files.includes(found.sym.file)) files.push(found.sym.file);
  const sites = ordered(
    await collectSites(ctx, values, found.sym, files),
    found.sym.file,
    found.nameStart,
  );
  const parameter = bindingsOf(found.sym).some((binding) => binding.kind === "param");
  const out: SymbolSites = {
    definition: `${found.sym.file.display}:${found.lines[0]}-${found.lines[1]}`,
    sites: sites.map(shown),
    filesSearched: world.searched,
    renameConflicts: (newName) => {
      if (parameter) return [PARAMETER_NOTE];
      // A file can clash with the new name only by spelling it.
      world.widen([newName]);
      return pythonConflicts(values, found.sym, sites, newName);
    },
  };
  const notes = [found.note, parameter ? PARAMETER_NOTE : undefined]
    .filter((each): each is string => Boolean(each));
  const note = [...notes, world.unkept].filter(Boolean).join("; ");
  if (note) out.note = note;
  // An answer that skipped a file is not kept: what it skipped would not be said again.
  if (resolvedScope.info?.isDirectory && skipped.count === before) {
    answers.put(key, keptAnswer(world, { definition: out.definition, sites: out.sites, notes }));
  }
  return out;
}

/** A kept answer, given again (its inputs checked). */
function recalled(world: PyWorld, kept: PyAnswer): SymbolSites {
  const note = [...kept.notes, world.unkept].filter(Boolean).join("; ");
  const out: SymbolSites = {
    definition: kept.definition,
    sites: kept.sites.map((site) => ({ ...site })),
    filesSearched: world.searched,
  };
  if (note) out.note = note;
  return out;
}

const PARAMETER_NOTE =
  "it is a parameter: keyword arguments that name it at call sites are not followed";

function noteOf(skipped: Skipped): string {
  const note = skipped.summary().first;
  return note ? `: ${note.reason}` : "";
}

/** The definition first, then by path and position; each place once. */
function ordered(sites: PySite[], file: PyFile, nameStart: number): PySite[] {
  const isDefinition = (site: PySite) => site.file === file && site.start === nameStart;
  const unique = uniqueSites(sites, (site) => `${site.file.path}\0${site.start}`);
  return sortSites(unique, (site) => site.file.display, isDefinition)
    .map((site) => isDefinition(site) ? { ...site, role: "definition" } : site);
}

/** How much of a site's line is shown. */
const PY_CUT: LineCut = { max: 200, mark: "" };

/** A site as the tools show it. */
function shown(site: PySite): SymbolSite {
  const { text, lineStarts } = site.file.facts;
  return shownSite(site.file.display, placeOf(text, lineStarts, site.start), site, PY_CUT);
}
