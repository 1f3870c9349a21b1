/**
 * The definitions in a syntax tree, each with the calls in its body, for
 * `derive_code_path`: walked with an explicit stack, so that no nesting
 * depth can exhaust the call stack, and read through the language's
 * {@linkcode CallSyntax}.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { CallSyntax } from "../family.ts";

/** A call in a definition's body: the callee's name, and the call's line. */
export interface Call {
  /** The name called (`f` in `a.b.f()`). */
  callee: string;
  /** 1-based line of the call. */
  line: number;
}

/** A function or method, where it is, and what it calls. */
export interface Definition {
  /** Its own name. */
  name: string;
  /** Its dotted name in its file (`Class.method`). */
  qualified: string;
  /** Its file, as shown to the model. */
  file: string;
  /** 1-based first line. */
  startLine: number;
  /** 1-based last line. */
  endLine: number;
  /** Calls in its body (not in nested definitions): callee name and line. */
  calls: Call[];
}

/** Named children still to look at, in a scope, inside a definition's body or not. */
interface Frame {
  children: Array<Node | null>;
  index: number;
  scope: string[];
  /** The definition whose body this is (its calls are recorded), if any. */
  body: Definition | undefined;
}

/**
 * Collect the definitions (and the calls in their bodies) under a node, in
 * source order. Nested definitions get their own entries; a class or
 * namespace adds its name to the scope.
 *
 * @param root The root node.
 * @param syntax How the tree's language writes definitions and calls.
 * @param file The file, as shown to the model.
 * @param out Where the definitions go.
 */
export function definitionsIn(
  root: Node,
  syntax: CallSyntax,
  file: string,
  out: Definition[],
): void {
  const stack: Frame[] = [{ children: root.namedChildren, index: 0, scope: [], body: undefined }];
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.index >= frame.children.length) {
      stack.pop();
      continue;
    }
    const node = frame.children[frame.index++];
    if (!node) continue;
    const { scope, body } = frame;
    const value = syntax.functionValue?.(node);
    const name = value?.name ??
      (syntax.definitions.has(node.type) ? syntax.definitionName(node) : undefined);
    if (name) {
      const def = define(node, name, scope, file);
      out.push(def);
      const inner = value ? value.body : node.childForFieldName("body");
      if (inner) {
        const parts = [...scope, ...name.split(/::|\./)];
        stack.push({ children: inner.namedChildren, index: 0, scope: parts, body: def });
      }
      continue;
    }
    let childBody = body;
    let childScope = scope;
    if (syntax.scopes.has(node.type)) {
      const scopeName = node.childForFieldName("name")?.text;
      if (scopeName) childScope = [...scope, scopeName];
      childBody = undefined; // a class's methods are definitions of their own
    } else if (syntax.definitions.has(node.type)) {
      childBody = undefined; // a definition without a name: looked into, outside any body
    } else if (body && syntax.calls.has(node.type)) {
      const callee = syntax.callee(node);
      if (callee) body.calls.push({ callee, line: node.startPosition.row + 1 });
    }
    stack.push({ children: node.namedChildren, index: 0, scope: childScope, body: childBody });
  }
}

function define(node: Node, name: string, scope: string[], file: string): Definition {
  const parts = name.split(/::|\./);
  return {
    name: parts.at(-1)!,
    qualified: [...scope, ...parts].join("."),
    file,
    startLine: node.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
    calls: [],
  };
}
