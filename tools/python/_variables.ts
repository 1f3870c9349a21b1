/**
 * Module- and class-level variable assignments (`X = 1`, `x: int = 2`,
 * `a, b = ...`, `x: int`), found through `if`/`try`/`with` blocks but not
 * inside function bodies.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { COMPOUND_STATEMENTS, lastRow } from "./_symbols.ts";

/** One assignment statement. */
export interface Assignment {
  /** The names it binds. */
  names: string[];
  /** The statement (`expression_statement`). */
  statement: Node;
  /** First line, 1-based. */
  startLine: number;
  /** Last line, 1-based. */
  endLine: number;
}

/**
 * The assignments directly in a module or class body (through compound statements).
 *
 * @param body A `module` or `block` node.
 * @returns The assignments, in source order.
 */
export function assignmentsIn(body: Node): Assignment[] {
  const out: Assignment[] = [];
  for (const child of body.namedChildren) {
    if (!child) continue;
    if (child.type === "expression_statement") {
      const first = child.namedChild(0);
      if (first?.type === "assignment") {
        const names = boundNames(first);
        if (names.length > 0) {
          out.push({
            names,
            statement: child,
            startLine: child.startPosition.row + 1,
            endLine: lastRow(child) + 1,
          });
        }
      }
    } else if (COMPOUND_STATEMENTS.has(child.type)) {
      for (const assignment of assignmentsIn(child)) out.push(assignment);
    }
  }
  return out;
}

function boundNames(assignment: Node): string[] {
  const names: string[] = [];
  let current: Node | null = assignment;
  while (current?.type === "assignment") {
    collectTargets(current.childForFieldName("left"), names);
    current = current.childForFieldName("right");
  }
  return names;
}

const TARGET_LISTS =
  /^(pattern_list|tuple_pattern|list_pattern|list_splat_pattern|parenthesized_expression|tuple|list)$/;

/** The names a target binds, in order (with an explicit stack: `((((a))))` may nest thousands deep). */
function collectTargets(target: Node | null, names: string[]): void {
  const stack = [target];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) continue;
    if (node.type === "identifier") names.push(node.text);
    else if (TARGET_LISTS.test(node.type)) {
      const children = node.namedChildren;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
}
