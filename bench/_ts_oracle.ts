/**
 * The TypeScript package's own language service as the oracle for
 * `find_usages` on TypeScript and JavaScript: the symbols a seeded sampler
 * picks from its navigation trees, each one's references as
 * `findReferences` lists them, and precision and recall of a tool's sites
 * against those.
 *
 * @module
 */

import ts from "typescript";
import { stratifiedSample } from "./_seeded.ts";
import { type SiteKey, siteKey } from "./_oracle_score.ts";

/** A project the language service reads: its folder, files and compiler options. */
export interface OracleProject {
  /** The folder; the files are relative to it. */
  root: string;
  /** The files, relative. */
  files: readonly string[];
  /** How the compiler reads them. */
  options: ts.CompilerOptions;
}

/** A symbol to look up: where it is declared and the dotted name the tools take. */
export interface Pick {
  /** The declaring file, relative. */
  path: string;
  /** `name`, or `Outer.member`. */
  name: string;
  /** Offsets of the declared name in the file: several for a merged name (an interface and a const). */
  positions: number[];
  /** What the sampler saw: its kind, and whether the name is declared more than once (merged). */
  kind: string;
  /** Declared by several declarations in one scope (an interface and a const, say). */
  merged: boolean;
}

/**
 * A language service over a project, reading its files from disk.
 *
 * @param project The project.
 * @returns The service.
 */
export function languageService(project: OracleProject): ts.LanguageService {
  const absolute = project.files.map((file) => `${project.root}/${file}`);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => project.options,
    getScriptFileNames: () => absolute,
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => project.root,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** Kinds of navigation items the sampler takes: declarations a model would name. */
const DECLARED = new Set<string>([
  ts.ScriptElementKind.functionElement,
  ts.ScriptElementKind.classElement,
  ts.ScriptElementKind.interfaceElement,
  ts.ScriptElementKind.typeElement,
  ts.ScriptElementKind.enumElement,
  ts.ScriptElementKind.constElement,
  ts.ScriptElementKind.letElement,
  ts.ScriptElementKind.variableElement,
  ts.ScriptElementKind.moduleElement,
  ts.ScriptElementKind.alias,
]);
const MEMBERS = new Set<string>([
  ts.ScriptElementKind.memberFunctionElement,
  ts.ScriptElementKind.memberVariableElement,
  ts.ScriptElementKind.memberGetAccessorElement,
  ts.ScriptElementKind.memberSetAccessorElement,
]);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Every symbol the sampler may pick: top-level declarations and export
 * aliases of each file, and the members of its classes and interfaces.
 *
 * @param service The language service.
 * @param project Its project.
 * @returns The candidates, in file and position order.
 */
export function candidates(service: ts.LanguageService, project: OracleProject): Pick[] {
  const picks: Pick[] = [];
  for (const path of project.files) {
    const tree = service.getNavigationTree(`${project.root}/${path}`);
    const top = tree.childItems ?? [];
    const counts = new Map<string, number>();
    for (const item of top) counts.set(item.text, (counts.get(item.text) ?? 0) + 1);
    for (const item of top) {
      if (!DECLARED.has(item.kind) || !IDENTIFIER.test(item.text) || !item.nameSpan) continue;
      const merged = (counts.get(item.text) ?? 0) > 1;
      const assigned = assignedProperty(service, `${project.root}/${path}`, item.nameSpan.start);
      if (assigned === null) continue;
      if (assigned) {
        picks.push({ path, ...assigned, kind: item.kind, merged });
        continue;
      }
      picks.push({
        path,
        name: item.text,
        positions: [item.nameSpan.start],
        kind: item.kind,
        merged,
      });
      const holds = item.kind === ts.ScriptElementKind.classElement ||
        item.kind === ts.ScriptElementKind.interfaceElement;
      for (const member of holds ? item.childItems ?? [] : []) {
        if (!MEMBERS.has(member.kind) || !IDENTIFIER.test(member.text) || !member.nameSpan) {
          continue;
        }
        picks.push({
          path,
          name: `${item.text}.${member.text}`,
          positions: [member.nameSpan.start],
          kind: member.kind,
          merged,
        });
      }
    }
  }
  return mergeByName(service, project, picks);
}

/**
 * One pick per dotted name and file, with the positions of all the
 * declarations of its symbol there (a merged interface and const). Where one
 * name means two symbols (a CommonJS `exports.x` beside a local `var x`),
 * the tools take the module's export: so does the pick.
 */
function mergeByName(
  service: ts.LanguageService,
  project: OracleProject,
  picks: readonly Pick[],
): Pick[] {
  const program = service.getProgram()!;
  const checker = program.getTypeChecker();
  const symbolAt = (pick: Pick) => {
    const file = program.getSourceFile(`${project.root}/${pick.path}`)!;
    const node = nodeAt(file, pick.positions[0]!);
    return node ? checker.getSymbolAtLocation(node) : undefined;
  };
  const byName = new Map<
    string,
    { pick: Pick; symbol: ts.Symbol | undefined; exported: boolean }
  >();
  for (const pick of picks) {
    const key = `${pick.path}\0${pick.name}`;
    const symbol = symbolAt(pick);
    const file = program.getSourceFile(`${project.root}/${pick.path}`)!;
    const exports = pick.name.includes(".") ? [] : moduleExports(checker, file);
    const exported = symbol !== undefined && exports.some((each) => each === symbol);
    const export_ = exports.find((each) => each.name === pick.name);
    if (!exported && export_) {
      // The name is the module's export, another symbol than this local one: the pick is the export.
      const names = (export_.declarations ?? []).filter((each) => each.getSourceFile() === file)
        .map((each) => (ts.getNameOfDeclaration(each) ?? each).getStart(file));
      if (names.length > 0 && !byName.has(key)) {
        byName.set(key, { pick: { ...pick, positions: names }, symbol: export_, exported: true });
      }
      continue;
    }
    const first = byName.get(key);
    if (!first) {
      byName.set(key, { pick: { ...pick, positions: [...pick.positions] }, symbol, exported });
    } else if (first.symbol === symbol) first.pick.positions.push(...pick.positions);
    else if (exported && !first.exported) byName.set(key, { pick, symbol, exported });
  }
  return [...byName.values()].map((each) => each.pick);
}

/** The innermost node that starts at or spans a position. */
function nodeAt(file: ts.SourceFile, position: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (node.getStart(file) <= position && position < node.getEnd()) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(file, visit);
  return found;
}

/**
 * For the name of a function expression assigned to a property
 * (`req.header = function header() {}`, CommonJS style), the property it is
 * assigned to: its dotted name as the tools take it (`exports.x` is the
 * module's `x`) and its position; `null` for the name of a function
 * expression assigned nowhere (a callback's, seen only inside it); else
 * `undefined` (not a function expression's name).
 */
function assignedProperty(
  service: ts.LanguageService,
  fileName: string,
  position: number,
): { name: string; positions: number[] } | null | undefined {
  const file = service.getProgram()!.getSourceFile(fileName)!;
  const found = nodeAt(file, position);
  const fn = found?.parent;
  const assignment = fn?.parent;
  if (!fn || !ts.isFunctionExpression(fn) || fn.name !== found) return undefined;
  // A function expression's own name, not assigned anywhere (a callback's): no name a model uses.
  if (
    !assignment || !ts.isBinaryExpression(assignment) ||
    !ts.isPropertyAccessExpression(assignment.left)
  ) return null;
  const { expression, name } = assignment.left;
  const owner = expression.getText(file);
  const dotted = owner === "exports" || owner === "module.exports"
    ? name.text
    : `${owner}.${name.text}`;
  return IDENTIFIER_PATH.test(dotted)
    ? { name: dotted, positions: [name.getStart(file)] }
    : undefined;
}

const IDENTIFIER_PATH = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/;

/**
 * A seeded sample: `count` candidates, a share of them from each stratum
 * (merged names, members, export aliases, the rest), reproducible.
 *
 * @param all The candidates.
 * @param count How many.
 * @param seed The seed.
 * @returns The picks, in candidate order.
 */
export function sample(all: readonly Pick[], count: number, seed: number): Pick[] {
  return stratifiedSample(all, count, seed, [
    (pick) => pick.merged && !pick.name.includes("."),
    (pick) => pick.name.includes("."),
    (pick) => pick.kind === ts.ScriptElementKind.alias,
    () => true,
  ]);
}

/**
 * The oracle's sites of a symbol: every reference `findReferences` lists
 * (declarations included) in the project's own files, from each of its
 * declarations in the file (the service searches by the meaning at the
 * position: from an interface, a merged const's value uses are not listed).
 *
 * @param service The language service.
 * @param project Its project.
 * @param pick The symbol.
 * @returns The sites.
 */
export function oracleSites(
  service: ts.LanguageService,
  project: OracleProject,
  pick: Pick,
): Set<SiteKey> {
  const sites = new Set<SiteKey>();
  const found = pick.positions.flatMap((position) =>
    service.findReferences(`${project.root}/${pick.path}`, position) ?? []
  );
  const program = service.getProgram()!;
  const prefix = `${project.root}/`;
  for (const symbol of found) {
    for (const reference of symbol.references) {
      if (!reference.fileName.startsWith(prefix)) continue;
      const file = program.getSourceFile(reference.fileName);
      if (!file) continue;
      const at = file.getLineAndCharacterOfPosition(reference.textSpan.start);
      sites.add(siteKey(reference.fileName.slice(prefix.length), at.line + 1, at.character + 1));
    }
  }
  return sites;
}

/**
 * What a file exports, as the compiler binds it: an ES module's exports, and
 * a CommonJS module's (`exports.x`, `module.exports`), whose symbol is the
 * file's own (the checker's public call gives none for it).
 *
 * @param checker The checker.
 * @param file The file.
 * @returns The exported symbols.
 */
export function moduleExports(checker: ts.TypeChecker, file: ts.SourceFile): ts.Symbol[] {
  const module = checker.getSymbolAtLocation(file) ?? (file as { symbol?: ts.Symbol }).symbol;
  return module ? checker.getExportsOfModule(module) : [];
}
