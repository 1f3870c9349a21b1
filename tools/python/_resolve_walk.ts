/**
 * One pass over a Python tree with a cursor (no recursion, so no depth
 * limit), collecting the facts the symbol resolver needs: scopes and their
 * bindings (LEGB: functions, lambdas and comprehensions nest; the first
 * iterable of a comprehension, default values, annotations, decorators and
 * bases belong to the enclosing scope), every name and attribute use, imports,
 * `__all__` entries and `getattr`-like strings.
 *
 * @module
 */

import type { Node, Tree, TreeCursor } from "web-tree-sitter";
import type { BindingKind, PyBinding, PyExpr, PyFacts, UseRole } from "./_resolve_facts.ts";
import { FactsBuilder } from "./_resolve_builder.ts";
import { exprAt, nodeExpr, parameterNames } from "./_resolve_nodes.ts";
import {
  childScope,
  COMPREHENSIONS,
  type Frame,
  LITERALS,
  storeRoleAt,
} from "./_resolve_frames.ts";

/**
 * Collect a parsed file's facts.
 *
 * @param tree The tree (used synchronously; the caller deletes it).
 * @param text The text it was parsed from.
 * @returns The facts.
 */
export function collectFacts(tree: Tree, text: string): PyFacts {
  const collector = new Collector(text);
  const cursor = tree.walk();
  try {
    collector.run(cursor);
  } finally {
    cursor.delete();
  }
  return collector.facts;
}

class Collector {
  readonly #facts: FactsBuilder;
  #text: string;
  #frames: Frame[] = [];
  /** Identifiers already recorded by a statement's handler (parameters). */
  #skip = new Set<number>();

  constructor(text: string) {
    this.#text = text;
    this.#facts = new FactsBuilder(text);
  }

  /** The facts collected. */
  get facts(): PyFacts {
    return this.#facts.facts;
  }

  run(cursor: TreeCursor): void {
    for (;;) {
      if (this.#enter(cursor) && cursor.gotoFirstChild()) continue;
      this.#frames.pop();
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
        this.#frames.pop();
      }
    }
  }

  /** Push the node's frame; true when its children are to be visited. */
  #enter(cursor: TreeCursor): boolean {
    const parent = this.#frames.at(-1);
    const field = cursor.currentFieldName;
    const frame: Frame = {
      type: cursor.nodeType,
      field,
      start: cursor.startIndex,
      end: cursor.endIndex,
      scope: parent ? childScope(parent, field, this.facts.scopes) : 0,
      inner: -1,
    };
    this.#frames.push(frame);
    if (parent) this.#noteChild(parent, frame);
    if (!cursor.nodeIsNamed || frame.type === "comment") return false;
    return this.#handle(frame, cursor);
  }

  #noteChild(parent: Frame, frame: Frame): void {
    if (parent.type === "return_statement" && frame.type !== "return") {
      // What a function returns: `return Cls(…)` makes its calls' results instances of Cls.
      const scope = this.facts.scopes[frame.scope]!;
      if (scope.kind === "function") {
        scope.returned = [...(scope.returned ?? []), this.#facts.want(this.#expr(frame))];
      }
      return;
    }
    const owner = this.#frames.at(-3);
    if (
      parent.field === "return_type" && owner?.type === "function_definition" && owner.inner >= 0
    ) {
      this.facts.scopes[owner.inner]!.returns = this.#facts.want(this.#expr(frame));
      return;
    }
    if (parent.type === "attribute" && frame.field === "object") {
      parent.object = this.#facts.want(this.#expr(frame));
    } else if (parent.type === "call" && frame.field === "function") {
      if (this.#facts.wanted(parent.end)) {
        this.facts.calls.set(parent.end, this.#facts.want(this.#expr(frame)));
      }
    } else if (frame.type === "for_in_clause" && COMPREHENSIONS.has(parent.type)) {
      if (!parent.seenFor) frame.first = parent.seenFor = true;
    }
  }

  #expr(frame: Frame): PyExpr {
    return exprAt(frame, () => this.#text.slice(frame.start, frame.end), frame.scope, LITERALS);
  }

  #handle(frame: Frame, cursor: TreeCursor): boolean {
    switch (frame.type) {
      case "identifier":
        this.#identifier(frame);
        return false;
      case "function_definition":
      case "class_definition":
        frame.inner = this.#facts.definition(cursor.currentNode, frame.scope);
        return true;
      case "lambda":
        frame.inner = this.#facts.openScope("lambda", frame.scope, frame.start, frame.end);
        return true;
      case "parameters":
      case "lambda_parameters":
        this.#parameters(frame, cursor.currentNode);
        return true;
      case "import_statement":
      case "import_from_statement":
        this.#facts.imports(cursor.currentNode, frame.scope);
        return false;
      case "future_import_statement":
        return false;
      case "global_statement":
      case "nonlocal_statement":
        this.#facts.declare(cursor.currentNode, frame.scope);
        return false;
      case "dotted_name":
        this.#pattern(frame, cursor.currentNode);
        return false;
      case "assignment":
      case "augmented_assignment":
        this.#assignment(frame, cursor.currentNode);
        return true;
      case "call":
        if (this.#special(frame)) this.#facts.call(cursor.currentNode, frame.scope);
        return true;
      default:
        if (COMPREHENSIONS.has(frame.type)) {
          frame.inner = this.#facts.openScope("comprehension", frame.scope, frame.start, frame.end);
        }
        return true;
    }
  }

  #parameters(frame: Frame, node: Node): void {
    const parent = this.#frames.at(-2);
    if (!parent || parent.inner < 0) return;
    const scope = this.facts.scopes[parent.inner]!;
    for (const [i, param] of parameterNames(node, frame.scope).entries()) {
      if (i === 0) scope.firstParam = param.name;
      this.#skip.add(param.start);
      const binding = this.#facts.bind(parent.inner, param.name, param.start, "param");
      if (param.annotation) binding.annotation = this.#facts.want(param.annotation);
      this.#facts.ref(param.name, param.start, parent.inner, "param");
    }
  }

  /** A name in a `match` pattern: a capture (`case x:`) or a value (`case Color.RED:`). */
  #pattern(frame: Frame, node: Node): void {
    const ids = node.namedChildren.filter((id): id is Node => id?.type === "identifier");
    const head = ids[0];
    if (!head) return;
    const parent = this.#frames.at(-2);
    if (
      ids.length === 1 && (parent?.type === "case_pattern" || parent?.type === "keyword_pattern")
    ) {
      if (head.text !== "_") this.#store(head.text, head.startIndex, frame.scope, "other");
      return;
    }
    this.#facts.ref(head.text, head.startIndex, frame.scope, "load");
    let object: PyExpr = {
      kind: "name",
      name: head.text,
      start: head.startIndex,
      scope: frame.scope,
    };
    for (const id of ids.slice(1)) {
      const attr = { name: id.text, start: id.startIndex, scope: frame.scope, object };
      this.#facts.attr({ ...attr, role: "load" }, id.endIndex, true);
      object = { kind: "attr", end: id.endIndex };
    }
  }

  #assignment(frame: Frame, node: Node): void {
    const left = node.childForFieldName("left");
    const right = node.childForFieldName("right");
    if (left?.type === "identifier" || left?.type === "attribute") {
      if (right && frame.type === "assignment") {
        frame.value = this.#facts.want(nodeExpr(right, frame.scope));
      }
      const type = node.childForFieldName("type");
      if (type) frame.annotation = this.#facts.want(nodeExpr(type, frame.scope));
    }
    if (frame.scope === 0 && left?.text === "__all__") this.#facts.all(right);
  }

  #identifier(frame: Frame): void {
    if (this.#skip.has(frame.start)) return;
    const parent = this.#frames.at(-2);
    const name = this.#text.slice(frame.start, frame.end);
    if (parent?.type === "attribute" && frame.field === "attribute") {
      this.#attribute(parent, name, frame.start);
      return;
    }
    if (parent && (frame.field === "name" && parent.type === "keyword_argument")) return;
    if (parent?.type === "keyword_pattern" && frame.start === parent.start) return;
    if (frame.field === "name" && parent && parent.inner >= 0) {
      this.#named(parent, name, frame.start);
      return;
    }
    const store = storeRoleAt(this.#frames, this.#frames.length - 1);
    if (store) {
      const kind: BindingKind = store.value || store.annotation ? "assign" : "other";
      const binding = this.#store(name, frame.start, frame.scope, kind, store.role);
      if (binding && store.value) binding.value = store.value;
      if (binding && store.annotation) binding.annotation = store.annotation;
      return;
    }
    const called = parent?.type === "call" && frame.field === "function";
    this.#facts.ref(name, frame.start, frame.scope, called ? "call" : "load");
  }

  /** The name of a `def` or `class`. */
  #named(parent: Frame, name: string, start: number): void {
    const scope = this.facts.scopes[parent.inner]!;
    scope.name = name;
    scope.nameStart = start;
    const kind = parent.type === "class_definition" ? "class" : "def";
    const binding = this.#store(name, start, parent.scope, kind, "def");
    if (binding) binding.opens = parent.inner;
  }

  #attribute(parent: Frame, name: string, start: number): void {
    const index = this.#frames.length - 2;
    const store = storeRoleAt(this.#frames, index);
    const outer = this.#frames[index - 1];
    const called = outer?.type === "call" && parent.field === "function";
    const role: UseRole = store ? store.role : called ? "call" : "load";
    const object = parent.object ?? { kind: "other" };
    const attr = { name, start, scope: parent.scope, object, role };
    this.#facts.attr(store?.value ? { ...attr, value: store.value } : attr, parent.end);
  }

  #store(
    name: string,
    start: number,
    scope: number,
    kind: BindingKind,
    role: UseRole = "store",
  ): PyBinding | undefined {
    this.#facts.ref(name, start, scope, role);
    if (role === "del") return undefined;
    const frame = this.#frames.at(-2);
    const walrus = frame?.type === "named_expression";
    return this.#facts.bind(this.#facts.bindingScope(scope, name, walrus), name, start, kind);
  }

  /** A call that names `__all__.` or a `getattr`-like function: read it whole. */
  #special(frame: Frame): boolean {
    const head = this.#text.slice(frame.start, frame.start + 8);
    return (frame.scope === 0 && head === "__all__.") || /^(?:get|has|set|del)attr\b/.test(head);
  }
}
