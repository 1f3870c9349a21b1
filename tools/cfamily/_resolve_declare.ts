/**
 * The C/C++ facts walker's declarations: functions (with parameters as
 * locals), variables, typedefs, namespaces, `using`, templates and macros.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { CState } from "./_resolve_state.ts";
import type { Receiver, TypeRef } from "./_resolve_facts.ts";
import {
  bodyWords,
  type DeclaredName,
  declaredName,
  functionDeclarator,
  hasToken,
  scopeName,
  statementOf,
  storageOf,
} from "./_resolve_syntax.ts";
import { parameters, qualifiedOcc, qualifierOccs, recordName, typeOf } from "./_resolve_types.ts";

/**
 * A function definition: its name (a function, or a member in a class
 * body, or `A::f` out of line), its parameters, and its body with the class
 * known for unqualified member names.
 *
 * @param s The walker's state.
 * @param node The `function_definition`.
 */
export function functionDefinition(s: CState, node: Node): void {
  const declarator = node.childForFieldName("declarator");
  const fn = functionDeclarator(declarator);
  const type = typeOf(s, node.childForFieldName("type"));
  const named = declaredName(fn?.childForFieldName("declarator") ?? declarator);
  const cls = named ? functionName(s, node, named, type) : undefined;
  s.nested(() => {
    if (cls) s.cls = cls;
    s.block(() => {
      if (fn) parameters(s, fn);
      for (const child of node.namedChildren) {
        if (!child) continue;
        const skip = child.id === declarator?.id ||
          child.id === node.childForFieldName("type")?.id ||
          child.type === "storage_class_specifier";
        if (!skip) s.visit(child);
      }
    });
  });
}

/** Record a defined function's name; the class its body sees (`A` for `A::f`, or the class it is in). */
function functionName(
  s: CState,
  node: Node,
  named: DeclaredName,
  type: TypeRef | undefined,
): string[] | undefined {
  const qualifier = named.qualifier.map(scopeName);
  const record = s.records.at(-1);
  qualifierOccs(s, named.qualifier);
  const inClass = record === undefined ? undefined : recordName(s, record);
  if (named.destructor || qualifier.at(-1) === named.token.text || inClass === named.token.text) {
    s.occ(named.token, "type", { qualifier: qualifier.slice(0, -1) }); // a constructor or destructor
  } else if (record !== undefined) {
    s.member(
      record,
      s.declare(named.token, { kind: "member", owner: record, node: statementOf(node) }),
    );
  } else {
    s.declare(named.token, {
      kind: "function",
      qualifier,
      internal: storageOf(node).has("static") || s.inAnonymous,
      node: statementOf(node),
      ...(type ? { type } : {}),
    });
  }
  if (record !== undefined) return s.facts.records[record]!.qualified.split("::");
  return qualifier.length > 0 ? [...s.ns.filter((n) => n !== ""), ...qualifier] : undefined;
}

/**
 * A declaration: file-scope names (functions, variables, `extern`s), or
 * locals in a block (a block-scope prototype or `extern` names a file-scope
 * entity); initializers, with designated members read from the declared type.
 *
 * @param s The walker's state.
 * @param node The `declaration`.
 */
export function declaration(s: CState, node: Node): void {
  const storage = storageOf(node);
  const type = typeOf(s, node.childForFieldName("type"));
  for (const item of node.childrenForFieldName("declarator")) {
    let declarator: Node | null = item;
    let value: Node | null = null;
    if (item.type === "init_declarator") {
      value = item.childForFieldName("value");
      declarator = item.childForFieldName("declarator");
    }
    const fn = functionDeclarator(declarator);
    if (fn) s.block(() => parameters(s, fn));
    const named = declaredName(declarator);
    if (named && s.inBlock && !fn && !storage.has("extern")) {
      s.local(named.token.text, type ?? null);
    } else if (named && s.inBlock) {
      s.occ(named.token, "ref");
    } else if (named) {
      qualifierOccs(s, named.qualifier);
      s.declare(named.token, {
        kind: fn ? "prototype" : storage.has("extern") && !value ? "extern" : "variable",
        qualifier: named.qualifier.map(scopeName),
        internal: storage.has("static") || s.inAnonymous,
        node: statementOf(node),
        ...(type ? { type } : {}),
      });
    }
    if (value) initializer(s, value, type ? { kind: "type", type } : { kind: "unknown" });
  }
}

/**
 * An initializer: designated members (`.x = 1`) are read from what it initializes.
 *
 * @param s The walker's state.
 * @param value The initializer.
 * @param receiver What its designators name members of.
 */
export function initializer(s: CState, value: Node, receiver: Receiver): void {
  if (value.type !== "initializer_list") return s.visit(value);
  for (const child of value.namedChildren) {
    if (!child) continue;
    if (child.type !== "initializer_pair") {
      if (child.type === "initializer_list") initializer(s, child, { kind: "unknown" });
      else s.visit(child);
      continue;
    }
    let inner = receiver;
    for (const designator of child.childrenForFieldName("designator")) {
      const field = designator.type === "field_designator" ? designator.namedChildren[0] : null;
      if (field?.type === "field_identifier") {
        s.occ(field, "member", { receiver: inner });
        inner = { kind: "member", base: inner, member: field.text };
      } else s.visit(designator);
    }
    const item = child.childForFieldName("value");
    if (item) initializer(s, item, inner);
  }
}

/**
 * `typedef T name;` (a local typedef is a local name).
 *
 * @param s The walker's state.
 * @param node The `type_definition`.
 */
export function typeDefinition(s: CState, node: Node): void {
  const type = typeOf(s, node.childForFieldName("type"));
  for (const declarator of node.childrenForFieldName("declarator")) {
    const fn = functionDeclarator(declarator);
    if (fn) s.block(() => parameters(s, fn));
    const named = declaredName(declarator);
    if (!named) continue;
    if (s.inBlock) {
      s.local(named.token.text, type ?? null);
      continue;
    }
    const decl = s.declare(named.token, {
      kind: "typedef",
      node: statementOf(node),
      internal: s.inAnonymous,
      ...(type ? { type } : {}),
    });
    const record = type?.record === undefined ? undefined : s.facts.records[type.record];
    if (record && record.qualified === "") record.qualified = s.facts.decls[decl]!.qualified;
  }
}

/**
 * `using Alias = Type;`: a typedef.
 *
 * @param s The walker's state.
 * @param node The `alias_declaration`.
 */
export function aliasDeclaration(s: CState, node: Node): void {
  const name = node.childForFieldName("name");
  const typeNode = node.childForFieldName("type");
  const type = typeOf(s, typeNode?.childForFieldName("type") ?? typeNode);
  if (!name) return;
  if (s.inBlock) return s.local(name.text, type ?? null);
  s.declare(name, { kind: "typedef", node: statementOf(node), ...(type ? { type } : {}) });
}

/**
 * `namespace a { … }`, `namespace a::b { … }`, `namespace { … }`.
 *
 * @param s The walker's state.
 * @param node The `namespace_definition`.
 */
export function namespaceDefinition(s: CState, node: Node): void {
  const name = node.childForFieldName("name");
  const body = node.childForFieldName("body");
  s.nested(() => {
    if (!name) s.ns = [...s.ns, ""];
    const parts = name?.type === "nested_namespace_specifier" ? name.namedChildren : [name];
    for (const part of parts) {
      if (!part) continue;
      s.declare(part, { kind: "namespace", node });
      s.ns = [...s.ns, part.text];
    }
    if (body) s.visitChildren(body);
  });
}

/**
 * `using namespace ns;` and `using ns::name;`.
 *
 * @param s The walker's state.
 * @param node The `using_declaration`.
 */
export function usingDeclaration(s: CState, node: Node): void {
  const target = node.namedChildren.find((c) =>
    c?.type === "identifier" || c?.type === "qualified_identifier" ||
    c?.type === "namespace_identifier"
  );
  if (!target) return;
  if (target.type === "qualified_identifier") qualifiedOcc(s, target);
  else s.occ(target, "type");
  const parts = target.text.replace(/\s+/g, "").split("::").filter((p) => p !== "");
  if (hasToken(node, "namespace")) s.usingNamespace(parts);
  else if (parts.length > 1) s.facts.usings.set(parts.at(-1)!, parts.join("::"));
}

/**
 * `template <…> X`: the parameters are locals of X's declaration, X is not.
 *
 * @param s The walker's state.
 * @param node The `template_declaration`.
 */
export function templateDeclaration(s: CState, node: Node): void {
  s.block(() => {
    for (const child of node.namedChildren) {
      if (child?.type !== "template_parameter_list") {
        if (child) s.visit(child);
        continue;
      }
      for (const parameter of child.namedChildren) {
        if (!parameter) continue;
        const name = parameter.childForFieldName("name") ??
          parameter.namedChildren.find((c) =>
            c?.type === "type_identifier" || c?.type === "identifier"
          ) ??
          declaredName(parameter.childForFieldName("declarator"))?.token;
        if (name) s.local(name.text);
      }
    }
  }, false);
}

/**
 * `#define NAME …`: a macro, and the words of its body (listed as unsure sites).
 *
 * @param s The walker's state.
 * @param node A `preproc_def` or `preproc_function_def`.
 */
export function macroDefinition(s: CState, node: Node): void {
  const name = node.childForFieldName("name");
  if (!name) return;
  s.declare(name, { kind: "macro", node });
  const params = new Set(
    node.childForFieldName("parameters")?.namedChildren.map((p) => p?.text ?? "") ?? [],
  );
  const value = node.childForFieldName("value");
  if (!value) return;
  for (const word of bodyWords(value.text)) {
    if (params.has(word.name) || word.name === "__VA_ARGS__" || word.name === "defined") continue;
    s.occAt(word.name, value.startIndex + word.offset, "body");
  }
}
