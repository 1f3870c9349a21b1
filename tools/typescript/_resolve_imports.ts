/**
 * The facts walker's ES module statements: imports become declarations that
 * alias what another module exports; exports (local, default, re-exports,
 * `export *`, `export * as ns`) are recorded by exported name.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { type At, linesOf, type Walker } from "./_resolve_builder.ts";
import { hasToken, stringValue } from "./_resolve_chain.ts";
import { classDeclaration } from "./_resolve_classes.ts";
import { functionDeclaration } from "./_resolve_scopes.ts";
import { BOTH, EXPORT, IN_ERROR } from "./_resolve_facts.ts";

/**
 * `import d, { a as b, c } from "x"`, `import * as ns from "x"`,
 * `import r = require("x")`.
 *
 * @param w The walker.
 * @param node An `import_statement`.
 * @param at Where it is.
 */
export function importStatement(w: Walker, node: Node, at: At): void {
  const spec = stringValue(node.childForFieldName("source")) ?? "";
  const lines = linesOf(node);
  const flags = at.flags & IN_ERROR;
  const bind = (name: Node, path: string[], from = spec) =>
    w.b.declare(name, {
      kind: "import",
      space: BOTH,
      scope: at.scope,
      lines,
      flags,
      alias: { root: { kind: "module", spec: from }, path },
    });
  for (const child of node.namedChildren) {
    if (child?.type === "import_require_clause") {
      const name = child.namedChildren.find((c) => c?.type === "identifier");
      const from = stringValue(child.childForFieldName("source")) ?? "";
      if (name) bind(name, [], from);
    }
    if (child?.type !== "import_clause") continue;
    for (const part of child.namedChildren) {
      if (part?.type === "identifier") bind(part, ["default"]);
      else if (part?.type === "namespace_import") {
        const name = part.namedChildren.find((c) => c?.type === "identifier");
        if (name) bind(name, []);
      } else if (part?.type === "named_imports") {
        namedImports(w, part, { spec, flags, bind });
      }
    }
  }
}

/** `{ a as b, c }` of an import: `a` names the module's export, `b` and `c` are declared. */
function namedImports(
  w: Walker,
  node: Node,
  how: { spec: string; flags: number; bind: (name: Node, path: string[]) => number },
): void {
  for (const specifier of node.namedChildren) {
    if (specifier?.type !== "import_specifier") continue;
    const name = specifier.childForFieldName("name");
    const alias = specifier.childForFieldName("alias");
    if (!name) continue;
    const imported = name.type === "string" ? stringValue(name) ?? "" : name.text;
    if (alias) {
      if (name.type === "identifier") {
        w.b.occ(name, "imported", { spec: how.spec, imported, flags: how.flags });
      }
      how.bind(alias, [imported]);
    } else if (name.type === "identifier") how.bind(name, [imported]);
  }
}

/**
 * Any `export` statement.
 *
 * @param w The walker.
 * @param node An `export_statement`.
 * @param at Where it is.
 */
export function exportStatement(w: Walker, node: Node, at: At): void {
  const declaration = node.childForFieldName("declaration");
  const value = node.childForFieldName("value");
  const isDefault = hasToken(node, "default");
  if (declaration) return exportDeclaration(w, declaration, at, isDefault);
  if (value) return exportValue(w, value, at, isDefault);
  const source = stringValue(node.childForFieldName("source"));
  const flags = (at.flags & IN_ERROR) | EXPORT;
  let listed = false;
  for (const child of node.namedChildren) {
    if (child?.type === "export_clause") {
      listed = true;
      for (const specifier of child.namedChildren) {
        if (specifier?.type === "export_specifier") exportSpecifier(w, specifier, at, source);
      }
    } else if (child?.type === "namespace_export" && source !== undefined) {
      listed = true;
      const name = child.namedChildren.find((c) =>
        c?.type === "identifier" || c?.type === "string"
      );
      if (!name) continue;
      const exported = name.type === "string" ? stringValue(name) ?? "" : name.text;
      w.b.occ(name, "exported", { spec: source, imported: "*", flags });
      w.b.export(exported, { kind: "from", spec: source, name: "*" });
    } else if (child && child.type !== "string") w.visit(child, at);
  }
  if (!listed && source !== undefined) w.b.star(source);
}

/** `export function f`, `export const a = 1, b`, `export default class C {}`: each name declared here. */
function exportDeclaration(w: Walker, declaration: Node, at: At, isDefault: boolean): void {
  const before = w.b.occs.length;
  w.visit(declaration, at);
  for (let i = before; i < w.b.occs.length; i++) {
    const occ = w.b.occs[i]!;
    if (occ.kind !== "decl" || w.b.scopeOf(occ.decl) !== at.scope) continue;
    if (w.b.decls[occ.decl]!.start !== occ.start) continue; // a later overload: one entry is enough
    const lines = w.b.decls[occ.decl]!.lines;
    if (at.ns >= 0) w.b.member(at.ns, i, { static: true, lines });
    else w.b.export(isDefault ? "default" : occ.name, { kind: "local", occ: i });
  }
}

/** `export default x`, `export default function f() {}`, `export default <expr>`, `export = x`. */
function exportValue(w: Walker, value: Node, at: At, isDefault: boolean): void {
  const named = value.childForFieldName("name");
  if (named && /^(function_expression|generator_function|function|class)$/.test(value.type)) {
    const before = w.b.occs.length;
    if (value.type === "class") classDeclaration(w, value, at, -1, true);
    else functionDeclaration(w, value, at);
    const occ = w.b.occs.findIndex((o, i) => i >= before && o.start === named.startIndex);
    if (occ >= 0 && at.ns < 0) w.b.export("default", { kind: "local", occ });
    return;
  }
  w.visit(value, at);
  const name = isDefault ? "default" : "module.exports"; // `export = x` is CommonJS's
  if (value.type === "identifier") {
    const occ = w.b.occAt(value.startIndex);
    if (occ === undefined) return;
    w.b.occs[occ]!.flags |= EXPORT;
    w.b.export(name, { kind: "local", occ });
    if (!isDefault) w.b.export("default", { kind: "local", occ });
  } else if (at.ns < 0) w.b.export(name, { kind: "expr", lines: linesOf(value.parent ?? value) });
}

/** `a`, `a as b` in `export { … }` (with or without `from`). */
function exportSpecifier(w: Walker, node: Node, at: At, source: string | undefined): void {
  const name = node.childForFieldName("name");
  const alias = node.childForFieldName("alias");
  if (!name) return;
  const flags = (at.flags & IN_ERROR) | EXPORT;
  const local = name.type === "string" ? stringValue(name) ?? "" : name.text;
  const exported = alias
    ? (alias.type === "string" ? stringValue(alias) ?? "" : alias.text)
    : local;
  if (source !== undefined) {
    if (name.type === "identifier") {
      w.b.occ(name, "imported", { spec: source, imported: local, flags });
    }
    if (alias?.type === "identifier") {
      w.b.occ(alias, "exported", { spec: source, imported: local, flags });
    }
    w.b.export(exported, { kind: "from", spec: source, name: local });
    return;
  }
  if (name.type !== "identifier") return;
  const occ = w.b.ref(name, at, "ref", { flags });
  if (alias?.type === "identifier") w.b.occ(alias, "exported", { local: occ, flags });
  if (at.ns >= 0) w.b.member(at.ns, occ, { static: true, lines: linesOf(node) });
  else w.b.export(exported, { kind: "local", occ });
}
