/**
 * Where a dotted name is declared, as the TypeScript checker binds it: a
 * file's exports (ES and CommonJS) and top-level bindings, then members,
 * statics, namespace exports and assigned properties, one segment at a time.
 *
 * @module
 */

import type tsModule from "typescript";

type TS = typeof tsModule;

/**
 * The declarations (their name nodes) of the symbol a dotted name means in a
 * file, that file's first: a top-level binding or export, then members,
 * statics, namespace exports and assigned properties, one segment at a time,
 * as the checker binds them. A merged name (an interface and a const, say)
 * has several.
 */
export function findDeclarations(
  ts: TS,
  checker: tsModule.TypeChecker,
  file: tsModule.SourceFile,
  dotted: string,
): Declared[] {
  const [head, ...rest] = dotted.split(".");
  let symbol = topLevel(ts, checker, file, head!);
  for (const part of rest) {
    if (!symbol) return [];
    symbol = memberOf(ts, checker, symbol, part);
  }
  const declarations = [...(symbol?.declarations ?? [])].sort((a, b) =>
    Number(b.getSourceFile() === file) - Number(a.getSourceFile() === file)
  );
  return declarations.map((each) => ({ name: ts.getNameOfDeclaration(each) ?? each, node: each }));
}

/** A declaration: its name (where references are searched from), and the node it spans. */
export interface Declared {
  name: tsModule.Node;
  node: tsModule.Node;
}

/** The lines a declaration spans: a variable's statement, an assignment's expression, else its own. */
export function spanned(ts: TS, node: tsModule.Node): tsModule.Node {
  if (ts.isVariableDeclaration(node) && ts.isVariableStatement(node.parent.parent)) {
    return node.parent.parent;
  }
  if (ts.isPropertyAccessExpression(node) && ts.isBinaryExpression(node.parent)) return node.parent;
  return node;
}

/** A top-level name of a file: its exports (CommonJS ones included), then its own top-level bindings. */
function topLevel(
  ts: TS,
  checker: tsModule.TypeChecker,
  file: tsModule.SourceFile,
  name: string,
): tsModule.Symbol | undefined {
  const module = moduleSymbol(checker, file);
  const exported = module
    ? checker.getExportsOfModule(module).find((each) => each.name === name)
    : undefined;
  if (exported) return exported;
  return ownTopLevel(ts, checker, file).find((each) => each.name === name);
}

/**
 * A module's symbol: an ES module's from the checker; a CommonJS one's
 * (`module.exports`, `exports.x = …`) is the file's own symbol, which the
 * checker's public call does not return.
 */
function moduleSymbol(
  checker: tsModule.TypeChecker,
  file: tsModule.SourceFile,
): tsModule.Symbol | undefined {
  return checker.getSymbolAtLocation(file) ?? (file as { symbol?: tsModule.Symbol }).symbol;
}

/** The symbols a file declares at its top level (the globals it sees left out). */
function ownTopLevel(
  ts: TS,
  checker: tsModule.TypeChecker,
  file: tsModule.SourceFile,
): tsModule.Symbol[] {
  const flags = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace |
    ts.SymbolFlags.Alias;
  return checker.getSymbolsInScope(file, flags).filter((each) =>
    each.declarations?.some((declaration) => declaration.getSourceFile() === file)
  );
}

/** A member of a symbol: what its declarations hold, then what its value's and instances' types have. */
function memberOf(
  ts: TS,
  checker: tsModule.TypeChecker,
  owner: tsModule.Symbol,
  name: string,
): tsModule.Symbol | undefined {
  const symbol = owner.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(owner) : owner;
  const key = ts.escapeLeadingUnderscores(name);
  const direct = symbol.members?.get(key) ?? symbol.exports?.get(key);
  if (direct) return direct;
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (!declaration) return undefined;
  const valueType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
  return valueType.getProperty(name) ?? checker.getDeclaredTypeOfSymbol(symbol).getProperty(name);
}

/** The names a file defines at top level, for a `not_found` message (the first 20). */
export function topLevelNames(
  ts: TS,
  checker: tsModule.TypeChecker,
  file: tsModule.SourceFile,
): string {
  const module = moduleSymbol(checker, file);
  const names = new Set(module ? checker.getExportsOfModule(module).map((each) => each.name) : []);
  for (const each of ownTopLevel(ts, checker, file)) names.add(each.name);
  const shown = [...names].filter((name) => name !== "default" && !name.startsWith("__")).sort();
  return shown.length === 0
    ? "none"
    : `${shown.slice(0, 20).join(", ")}${shown.length > 20 ? ", …" : ""}`;
}
