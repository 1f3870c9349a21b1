/**
 * How deep the symbol collectors follow nested code, and the error for
 * code nested deeper.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { ToolError } from "../security/errors.ts";

/**
 * The deepest nesting of definitions (namespaces, classes, `#if` groups,
 * blocks) the symbol collectors follow: clang's default bracket depth, and
 * well past Python's own limit of 100 indentation levels. Deeper code is
 * refused with {@linkcode tooDeep} rather than left to exhaust the call stack.
 */
export const MAX_NESTING = 256;

/**
 * The error for code nested deeper than {@linkcode MAX_NESTING}: the model
 * sees it for one file; whole-tree tools count the file as skipped.
 *
 * @param node The node that is one level too deep.
 * @returns A ToolError `unsupported` saying where.
 */
export function tooDeep(node: Node): ToolError {
  return new ToolError(
    "unsupported",
    `Cannot read past line ${
      node.startPosition.row + 1
    }: the code nests more than ${MAX_NESTING} levels deep`,
  );
}
