/**
 * `grep`'s patterns for ripgrep: translated into Rust's dialect so that
 * ripgrep finds at least every line `grep`'s own engine finds (ripgrep only
 * proposes candidate files; `_ripgrep.ts`).
 *
 * @module
 */

import {
  type ClassItem,
  type CommonEscape,
  type Escape,
  type Piece,
  readPattern,
} from "./_js_pattern.ts";

const JS_SPACE =
  "\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
const HIGH_BYTE = "(?-u:[\\x80-\\xFF])";
const CLASS_BODY: Record<string, string> = { d: "0-9", w: "0-9A-Za-z_", s: JS_SPACE };
/** The group names Rust takes. */
const RUST_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Translate a JS (`u` flag) regular expression into ripgrep's Rust dialect,
 * so that ripgrep matches at least every line JS matches: `\w \d \s \b` and
 * their negations get JS's meaning, `.` and negated classes also accept a
 * stray non-UTF-8 byte.
 *
 * @param js A pattern that `new RegExp(js, "u")` accepts.
 * @returns The Rust pattern, or undefined when ripgrep cannot take it (a line break).
 * @throws {UnsupportedPattern} For lookaround and backreferences (not in the common dialect).
 */
export function toRustRegex(js: string): string | undefined {
  let out = "";
  for (const piece of readPattern(js)) {
    const rust = pieceToRust(piece);
    if (rust === undefined) return undefined;
    out += rust;
  }
  return out;
}

function pieceToRust(piece: Piece): string | undefined {
  switch (piece.type) {
    case "char":
      return piece.char === "\n" || piece.char === "\r" ? undefined : piece.char;
    case "dot":
      return `(?:[^\\n\\r\\x{2028}\\x{2029}]|${HIGH_BYTE})`;
    case "group":
      return piece.name !== undefined && RUST_NAME.test(piece.name)
        ? `(?P<${piece.name}>`
        : piece.raw;
    case "class":
      return classToRust(piece);
    case "escape":
      return escapeToRust(piece.escape);
  }
}

/** An escape outside a class. */
function escapeToRust(escape: Escape): string | undefined {
  if (escape.kind === "shorthand") {
    const body = CLASS_BODY[escape.letter.toLowerCase()];
    return escape.letter === escape.letter.toLowerCase()
      ? `[${body}]`
      : `(?:[^${body}]|${HIGH_BYTE})`;
  }
  if (escape.kind === "boundary") return `(?:(?-u:\\${escape.letter})|\\${escape.letter})`;
  if (escape.kind === "backspace") return undefined; // read inside classes only
  return commonToRust(escape);
}

/** Escapes with the same meaning in and out of classes; undefined for what ripgrep cannot take. */
function commonToRust(escape: CommonEscape): string | undefined {
  switch (escape.kind) {
    case "control":
      return escape.letter === "n" ? undefined : `\\${escape.letter}`;
    case "nul":
      return "\\x00";
    case "code":
      return `\\x{${escape.digits}}`;
    case "surrogates":
    case "lone_surrogate":
      return undefined;
    case "property":
      return `\\${escape.letter}{${escape.name}}`;
    case "identity":
      if (escape.char === "/") return "/";
      if (escape.char === "-") return "\\-";
      return /[\\^$.*+?()[\]{}|]/.test(escape.char) ? `\\${escape.char}` : undefined;
  }
}

/** A bracket class; undefined when empty or holding what ripgrep cannot take. */
function classToRust(piece: Extract<Piece, { type: "class" }>): string | undefined {
  if (!piece.closed || piece.items.length === 0) return undefined;
  let body = "";
  for (const [at, item] of piece.items.entries()) {
    const rust = itemToRust(item, piece.items[at + 1]);
    if (rust === undefined) return undefined;
    body += rust;
  }
  return piece.negate ? `(?:[^${body}]|${HIGH_BYTE})` : `[${body}]`;
}

function itemToRust(item: ClassItem, next: ClassItem | undefined): string | undefined {
  if (item.type === "char") {
    const c = item.char;
    if (c === "[" || c === "&" || c === "~") return `\\${c}`;
    if (c === "-" && next?.type === "char" && next.char === "-") return undefined;
    return c === "\n" || c === "\r" ? undefined : c;
  }
  const escape = item.escape;
  if (escape.kind === "shorthand") {
    const lower = escape.letter.toLowerCase();
    return escape.letter === lower ? CLASS_BODY[lower] : `[^${CLASS_BODY[lower]}]`;
  }
  if (escape.kind === "backspace") return "\\x08";
  if (escape.kind === "control" && escape.letter === "n") return "\\n";
  if (escape.kind === "boundary") return undefined; // read outside classes only
  return commonToRust(escape);
}
