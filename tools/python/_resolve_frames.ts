/**
 * The frames of the Python facts walk (`_resolve_walk.ts`): what a node on
 * the way down tells its children (the scope names are looked up from, the
 * scope it opens, a comprehension's first iterable, an assignment's value),
 * and whether a name there is a target.
 *
 * @module
 */

import type { PyExpr, PyScope, UseRole } from "./_resolve_facts.ts";
import { LITERAL_NODES } from "./_resolve_nodes.ts";

/** A node on the way down, and what its children need to know. */
export interface Frame {
  /** The node's type. */
  readonly type: string;
  /** Its field in its parent. */
  readonly field: string | null;
  /** Where it starts. */
  readonly start: number;
  /** Where it ends. */
  readonly end: number;
  /** The scope names in this node are looked up from. */
  readonly scope: number;
  /** The scope this node opens (for its body), -1 when none. */
  inner: number;
  /** A comprehension's first `for` clause: its iterable is evaluated outside. */
  first?: boolean;
  /** A comprehension: its first `for` clause was met. */
  seenFor?: boolean;
  /** An attribute: its object. */
  object?: PyExpr;
  /** A single-target assignment: its value. */
  value?: PyExpr;
  /** A single-target assignment: its annotation. */
  annotation?: PyExpr;
}

/** Nodes that open a comprehension's scope. */
export const COMPREHENSIONS: ReadonlySet<string> = new Set([
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
]);

/** Nodes a target is nested in without ceasing to be a target (`a, (b, *c) = …`). */
const TARGET_CONTAINERS: ReadonlySet<string> = new Set([
  "pattern_list",
  "tuple_pattern",
  "list_pattern",
  "tuple",
  "list",
  "parenthesized_expression",
  "list_splat_pattern",
  "as_pattern_target",
  "expression_list",
]);

/** What the walk takes as literals: those of `nodeExpr`, comprehensions and arithmetic too. */
export const LITERALS: ReadonlySet<string> = new Set([
  ...LITERAL_NODES,
  "list_comprehension",
  "dictionary_comprehension",
  "set_comprehension",
  "binary_operator",
]);

/** How a target is stored to, and the value and annotation of a single-target assignment. */
export interface StoreRole {
  /** `store` or `del`. */
  role: UseRole;
  /** The value assigned. */
  value?: PyExpr;
  /** The annotation. */
  annotation?: PyExpr;
}

/**
 * The scope a child of a node is looked up from: the scope the node opens
 * for its body (a comprehension's for all of it), the enclosing one for a
 * comprehension's first iterable, else the node's own.
 *
 * @param parent The node's frame.
 * @param field The child's field.
 * @param scopes The scopes so far.
 * @returns The scope.
 */
export function childScope(
  parent: Frame,
  field: string | null,
  scopes: readonly PyScope[],
): number {
  if (parent.inner >= 0) {
    return COMPREHENSIONS.has(parent.type) || field === "body" ? parent.inner : parent.scope;
  }
  if (parent.first && field === "right") return scopes[parent.scope]!.parent;
  return parent.scope;
}

/**
 * Whether the node at `index` is a target (assigned, deleted, looped over, captured).
 *
 * @param frames The nodes on the way down.
 * @param index The node's frame.
 * @returns How it is stored to, or undefined when it is no target.
 */
export function storeRoleAt(frames: readonly Frame[], index: number): StoreRole | undefined {
  let child = frames[index]!;
  let i = index - 1;
  while (i > 0 && TARGET_CONTAINERS.has(frames[i]!.type)) child = frames[i--]!;
  const top = frames[i];
  if (!top) return undefined;
  const single = child === frames[index];
  switch (top.type) {
    case "assignment":
      if (child.field !== "left") return undefined;
      return single ? storeWith(top) : { role: "store" };
    case "augmented_assignment":
      return child.field === "left" ? { role: "store" } : undefined;
    case "for_statement":
    case "for_in_clause":
    case "named_expression":
      return child.field === "left" || child.field === "name" ? { role: "store" } : undefined;
    case "as_pattern":
      return child.start > top.start ? { role: "store" } : undefined;
    case "splat_pattern":
      return { role: "store" };
    case "delete_statement":
      return { role: "del" };
    default:
      return undefined;
  }
}

function storeWith(top: Frame): StoreRole {
  const out: StoreRole = { role: "store" };
  if (top.value) out.value = top.value;
  if (top.annotation) out.annotation = top.annotation;
  return out;
}
