/**
 * Parse errors in a tree-sitter tree: as warnings for an outline (in C and
 * C++ they are mostly macros tree-sitter cannot expand), and counted, so
 * that an edit that adds some is refused. Any language's tools use these.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";

/**
 * Parse errors as warnings: in C and C++ they are mostly macros tree-sitter
 * cannot expand, so they are reported, not fatal.
 *
 * @param tree The tree.
 * @param max The most to report.
 * @returns `line N: …` warnings.
 */
export function parseWarnings(tree: Tree, max = 20): string[] {
  const out: string[] = [];
  for (const node of errorNodes(tree)) {
    if (out.length >= max) break;
    out.push(
      `line ${node.startPosition.row + 1}: ${
        node.isMissing ? `missing ${node.type}` : "could not parse (often a macro)"
      }`,
    );
  }
  return out;
}

/**
 * Count parse errors (for refusing edits that add some).
 *
 * @param tree The tree.
 * @returns ERROR and MISSING nodes.
 */
export function errorCount(tree: Tree): number {
  let count = 0;
  for (const _ of errorNodes(tree, true)) count++;
  return count;
}

/**
 * The ERROR and MISSING nodes of a tree, in source order, found with an
 * explicit stack (an error deep in nested brackets is thousands of levels down).
 *
 * @param tree The tree.
 * @param nested Also look inside ERROR nodes (for counting).
 */
function* errorNodes(tree: Tree, nested = false): Generator<Node> {
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const isError = node.isError || node.isMissing;
    if (isError) yield node;
    if (!node.hasError || (isError && !nested)) continue;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push(child);
    }
  }
}
