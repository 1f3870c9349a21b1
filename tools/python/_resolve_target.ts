/**
 * The symbol a model names: a dotted name looked up in a file (`quote`,
 * `Message.get_payload`, `outer.inner`), a name the file only imports
 * followed to its real definition, and where that definition is.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { lineIndexOf } from "../symbols/_lines.ts";
import { bindingsOf, type Denoted, type Sym } from "./_resolve_lookup.ts";
import { instanceAttrs } from "./_resolve_classes.ts";
import type { PyValues } from "./_resolve_values.ts";
import type { PyFile } from "./_resolve_world.ts";

/** The symbol found, and where it is defined. */
export interface PyTarget {
  /** The symbol. */
  readonly sym: Sym;
  /** Where its name is written in its definition. */
  readonly nameStart: number;
  /** Its definition's first and last lines (1-based). */
  readonly lines: readonly [number, number];
  /** Set when the name was imported into the file the model named. */
  readonly note?: string;
}

/**
 * Find the symbol a dotted name names in a file.
 *
 * @param values Values and look-ups for the call.
 * @param file The file the model named.
 * @param dotted The dotted name.
 * @returns The symbol and its definition.
 * @throws {ToolError} `not_found` when the file does not define (or import) it; `invalid_argument` for a module.
 */
export function findTarget(values: PyValues, file: PyFile, dotted: string): PyTarget {
  const parts = dotted.split(".");
  if (parts.some((part) => part === "")) {
    throw new ToolError("invalid_argument", `Cannot look up "${dotted}": it is not a dotted name`);
  }
  const head = parts[0]!;
  if (!file.facts.scopes[0]!.bindings.has(head)) {
    throw new ToolError("not_found", `"${file.display}" defines no top-level name "${head}"`);
  }
  let sym = expectSym(values.lookup.definitionOf({ file, scope: 0, name: head }), head, file);
  const note = sym.file !== file
    ? `"${head}" is imported into ${file.display} from ${sym.file.display}: these are the uses of that definition`
    : undefined;
  for (const part of parts.slice(1)) sym = memberSym(values, sym, part);
  const at = definitionAt(sym);
  const out = { sym, nameStart: at.nameStart, lines: at.lines };
  return note ? { ...out, note } : out;
}

function expectSym(found: Denoted, name: string, file: PyFile): Sym {
  if (found.kind === "sym") return found.sym;
  if (found.kind === "module") {
    throw new ToolError(
      "invalid_argument",
      `"${name}" in "${file.display}" is a module: name a function, class or variable defined in it`,
    );
  }
  const why = found.kind === "unknown" ? `: ${found.reason}` : " (outside the project)";
  throw new ToolError(
    "not_found",
    `"${name}" in "${file.display}" is imported from elsewhere${why}`,
  );
}

/** A member of a class, or a name defined in a function's body. */
function memberSym(values: PyValues, owner: Sym, part: string): Sym {
  const value = values.valueOfSym(owner);
  if (value.kind === "class") {
    const found = values.classMember(value.cls, part);
    if (found.kind === "sym") return found.sym;
  } else {
    const opens = bindingsOf(owner).find((binding) => binding.opens !== undefined)?.opens;
    if (opens !== undefined && owner.file.facts.scopes[opens]!.bindings.has(part)) {
      return { file: owner.file, scope: opens, name: part };
    }
  }
  throw new ToolError(
    "not_found",
    `"${owner.name}" in "${owner.file.display}" has no member "${part}"`,
  );
}

/** Where a symbol is defined: its `def`/`class`, else its first binding, else its first `self.x =`. */
function definitionAt(sym: Sym): { nameStart: number; lines: [number, number] } {
  const facts = sym.file.facts;
  const line = (offset: number) => lineIndexOf(facts.lineStarts, offset) + 1;
  const bindings = bindingsOf(sym);
  const opener = bindings.find((binding) => binding.opens !== undefined);
  if (opener) {
    const scope = facts.scopes[opener.opens!]!;
    return {
      nameStart: opener.start,
      lines: [line(scope.start), line(Math.max(scope.start, scope.end - 1))],
    };
  }
  const first = bindings[0];
  if (first) return { nameStart: first.start, lines: [line(first.start), line(first.start)] };
  const assigned = instanceAttrs(facts, sym.scope).get(sym.name)?.[0];
  const start = assigned === undefined
    ? facts.scopes[sym.scope]!.start
    : facts.attrs[assigned]!.start;
  return { nameStart: start, lines: [line(start), line(start)] };
}
