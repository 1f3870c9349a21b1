/**
 * Line-level edits of Python files: re-indenting code to a new place,
 * replacing and removing a definition's lines, and inserting code with PEP 8
 * blank lines (two around top-level definitions, one inside classes).
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { splitLines, type TextFile, withEol } from "../_text.ts";
import {
  docstringNode,
  findSymbol,
  indentOf,
  lastRow,
  type PyFile,
  type PySymbol,
} from "./_symbols.ts";

/** Where `py_add_def` and `py_move_def` put code. */
export type AnchorType = "before" | "after" | "start" | "end";

/** A place to insert lines. */
export interface Place {
  /** Insert before this 0-based line index (may be `lines.length`). */
  at: number;
  /** The indentation of the inserted code. */
  indent: string;
  /** Blank lines wanted around it (2 at module level, 1 in a class). */
  blanks: number;
  /** The line before is a block header (`class X:`), so no blank line goes before. */
  afterHeader: boolean;
  /** The class the code goes into; undefined for the module. */
  scope?: PySymbol | undefined;
}

const BLANK = /^[ \t\f]*(\r\n|\r|\n)?$/;

/**
 * Re-indent code so that its first line starts at `indent`. Lines indented
 * less than the first (inside multi-line strings) are left alone.
 *
 * @param code The code, any line endings.
 * @param indent The wanted indentation.
 * @returns The code with `\n` endings.
 */
export function reindent(code: string, indent: string): string {
  const lines = code.replace(/\r\n?/g, "\n").split("\n");
  const first = lines.find((l) => l.trim() !== "");
  if (first === undefined) return code.replace(/\r\n?/g, "\n");
  let base = indentOf(first);
  if (base === "") base = lostIndent(lines, first);
  if (base === indent && indentOf(first) === base) return lines.join("\n");
  const at = lines.indexOf(first);
  return lines.map((l, i) => {
    if (l.trim() === "") return "";
    if (i === at) return indent + l.trimStart();
    return l.startsWith(base) ? indent + l.slice(base.length) : l;
  }).join("\n");
}

/**
 * The indentation a first line had before it was trimmed: code copied from
 * inside a class and trimmed starts at column 0 while its body stays at 8
 * spaces or more; its first line then belonged 4 spaces above its body.
 */
function lostIndent(lines: readonly string[], first: string): string {
  let least = Infinity;
  for (const line of lines.slice(lines.indexOf(first) + 1)) {
    if (line.trim() === "") continue;
    const lead = /^ */.exec(line)![0].length;
    least = Math.min(least, lead);
  }
  return least >= 8 && least < Infinity ? " ".repeat(least - 4) : "";
}

/**
 * Replace lines `start`..`end` (1-based) with new code, keeping the file's line endings.
 *
 * @param file The file.
 * @param start First line.
 * @param end Last line.
 * @param code The new code (`\n` or the file's endings).
 * @returns The new text of the whole file.
 */
export function replaceLines(file: PyFile, start: number, end: number, code: string): string {
  const replaced = file.lines.slice(start - 1, end).join("");
  let insert = withEol(code, file.file.eol);
  if (/[\r\n]$/.test(replaced) && insert !== "" && !/[\r\n]$/.test(insert)) insert += file.file.eol;
  return file.lines.slice(0, start - 1).join("") + insert + file.lines.slice(end).join("");
}

/**
 * The text of a file without a definition, blank lines tidied, and `pass`
 * left behind when the definition was its block's only statement.
 *
 * @param file The file.
 * @param symbol The definition.
 * @returns The new text.
 */
export function withoutSymbol(file: PyFile, symbol: PySymbol): string {
  const lines = [...file.lines];
  let from = symbol.startLine - 1;
  let to = symbol.endLine; // exclusive
  const onlyStatement = isOnlyStatement(symbol);
  if (onlyStatement) {
    const eol = file.file.eol;
    lines.splice(from, to - from, `${indentOf(lines[from]!)}pass${eol}`);
    return lines.join("");
  }
  const blankBefore = from > 0 && BLANK.test(lines[from - 1]!);
  const firstInBlock = symbol.outer.parent?.type === "block" &&
    !symbol.outer.previousNamedSibling;
  while (
    to < lines.length && BLANK.test(lines[to]!) && (blankBefore || from === 0 || firstInBlock)
  ) {
    to++;
  }
  if (to >= lines.length) {
    while (from > 0 && BLANK.test(lines[from - 1]!)) from--;
  }
  lines.splice(from, to - from);
  ensureFinalNewline(lines, file.file);
  return lines.join("");
}

function isOnlyStatement(symbol: PySymbol): boolean {
  const block = symbol.outer.parent;
  if (!block || block.type !== "block") return false;
  return block.namedChildren.filter((c) => c && c.type !== "comment").length === 1;
}

function ensureFinalNewline(lines: string[], file: TextFile): void {
  const last = lines.length - 1;
  if (last >= 0 && !/[\r\n]$/.test(lines[last]!) && file.text.match(/[\r\n]$/)) {
    lines[last] += file.eol;
  }
}

/**
 * Where to insert code, from an anchor.
 *
 * @param file The file.
 * @param type `before`/`after` a definition, or `start`/`end` of a class (or of the module when `symbol` is empty).
 * @param anchor The anchor definition's dotted name; empty for the module.
 * @returns The place.
 * @throws {ToolError} `not_found`, `ambiguous_match`, `invalid_argument`.
 */
export function placeFor(file: PyFile, type: AnchorType, anchor: string): Place {
  const target = anchor.trim() === "" ? undefined : findSymbol(file, anchor);
  if (type === "before" || type === "after") {
    if (!target) {
      throw new ToolError(
        "invalid_argument",
        `Cannot insert ${type} nothing: anchor_type "${type}" needs anchor_symbol (a definition's name); use "start" or "end" with an empty anchor_symbol for the module`,
      );
    }
    const indent = indentOf(file.lines[target.startLine - 1] ?? "");
    const blanks = target.parent || indent !== "" ? 1 : 2;
    const scope = target.parent;
    if (type === "after") return { at: target.endLine, indent, blanks, afterHeader: false, scope };
    // Its comments stay with it.
    return {
      at: commentsAbove(file, target.startLine - 1),
      indent,
      blanks,
      afterHeader: false,
      scope,
    };
  }
  if (!target) return modulePlace(file, type);
  if (target.kind !== "class") {
    throw new ToolError(
      "invalid_argument",
      `Cannot insert at the ${type} of "${target.qualified}": it is a ${target.kind}; "start" and "end" take a class (or an empty anchor_symbol for the module)`,
    );
  }
  const body = target.node.childForFieldName("body")!;
  const statements = body.namedChildren.filter((c) => c && c.type !== "comment");
  const first = statements[0]!;
  const indent = first.startPosition.row === target.node.startPosition.row
    ? indentOf(file.lines[target.node.startPosition.row]!) + "    "
    : indentOf(file.lines[first.startPosition.row]!);
  const scope = target;
  if (type === "end") return { at: target.endLine, indent, blanks: 1, afterHeader: false, scope };
  const doc = docstringNode(body);
  if (doc) return { at: lastRow(doc) + 1, indent, blanks: 1, afterHeader: false, scope };
  return { at: first.startPosition.row, indent, blanks: 1, afterHeader: true, scope };
}

function modulePlace(file: PyFile, type: AnchorType): Place {
  if (type === "end") {
    // The end of the module's definitions: before a trailing `if __name__ == "__main__":` block,
    // which runs when the module runs and so must come after everything it may call.
    const main = mainGuard(file);
    const at = main ? commentsAbove(file, main.startPosition.row) : file.lines.length;
    return { at, indent: "", blanks: 2, afterHeader: false };
  }
  // The start of a module's code: after its docstring and its imports.
  let at = 0;
  const root = file.tree.rootNode;
  const doc = docstringNode(root);
  for (const child of root.namedChildren) {
    if (!child) continue;
    if (child.type === "comment") {
      if (child.startPosition.row <= at) at = child.endPosition.row + 1;
      continue;
    }
    const isImport = child.type === "import_statement" || child.type === "import_from_statement" ||
      child.type === "future_import_statement";
    if (child.startIndex === doc?.parent?.startIndex || isImport) at = lastRow(child) + 1;
    else break;
  }
  return { at, indent: "", blanks: 2, afterHeader: at === 0 };
}

/** The module's last statement when it is `if __name__ == "__main__":` (either quotes, either order). */
function mainGuard(file: PyFile) {
  const statements = file.tree.rootNode.namedChildren.filter((child) =>
    child && child.type !== "comment"
  );
  const last = statements.at(-1);
  if (last?.type !== "if_statement") return undefined;
  const condition = last.childForFieldName("condition")?.text.replace(/\s+/g, "") ?? "";
  const main = /^(__name__==(["'])__main__\2|(["'])__main__\3==__name__)$/;
  return main.test(condition) ? last : undefined;
}

/** The row where a statement's comment lines above it begin (they stay with it). */
function commentsAbove(file: PyFile, row: number): number {
  let at = row;
  while (at > 0 && /^[ \t\f]*#/.test(file.lines[at - 1]!)) at--;
  return at;
}

/**
 * Insert code at a place: re-indented, with PEP 8 blank lines around it.
 *
 * @param file The file.
 * @param place Where.
 * @param code The code (one or more definitions), any indentation and line endings.
 * @returns The new text of the whole file, and the 1-based lines the code now occupies.
 */
export function insertAt(
  file: PyFile,
  place: Place,
  code: string,
): { text: string; start: number; end: number } {
  const eol = file.file.eol;
  const lines = [...file.lines];
  ensureFinalNewline(lines, { ...file.file, text: "\n" });
  const body = reindent(code, place.indent).replace(/^\n+|\s+$/g, "").split("\n").map((l) =>
    l + eol
  );
  let from = place.at;
  let to = place.at;
  while (from > 0 && BLANK.test(lines[from - 1]!)) from--;
  while (to < lines.length && BLANK.test(lines[to]!)) to++;
  const atStart = from === 0 || place.afterHeader;
  const atEnd = to >= lines.length;
  const dedentsAfter = !atEnd && indentOf(lines[to]!).length < place.indent.length;
  const before = atStart ? 0 : place.blanks;
  const after = atEnd ? 0 : dedentsAfter ? (indentOf(lines[to]!) === "" ? 2 : 1) : place.blanks;
  const inserted = [
    ...Array(before).fill(eol),
    ...body,
    ...Array(after).fill(eol),
  ];
  lines.splice(from, to - from, ...inserted);
  if (!/[\r\n]$/.test(file.file.text) && file.file.text !== "" && atEnd) {
    lines[lines.length - 1] = lines[lines.length - 1]!.replace(/(\r\n|\r|\n)$/, "");
  }
  const start = from + before + 1;
  return { text: lines.join(""), start, end: start + body.length - 1 };
}

/**
 * The names a piece of code defines at its top level.
 *
 * @param code The code.
 * @returns The first line's definition name, if it is a `def` or `class` (after decorators).
 */
export function definedName(code: string): string | undefined {
  for (const line of splitLines(code)) {
    const t = line.trim();
    if (t === "" || t.startsWith("@") || t.startsWith("#")) continue;
    return /^(?:async\s+)?(?:def|class)\s+([\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]*)/u
      .exec(t)?.[1];
  }
  return undefined;
}
