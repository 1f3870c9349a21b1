/**
 * `grep`'s regular expressions, run by a linear-time engine: RE2, through
 * its pure-JavaScript port `re2js`. A backtracking engine (JavaScript's own)
 * can take exponential time on a pattern such as `(a+)+$` and a line of
 * `a`s; RE2 takes time proportional to the text whatever the pattern
 * (measured in bench/README.md). Patterns keep the dialect `grep` promises,
 * JavaScript's (`u` flag) less lookaround and backreferences: they are
 * checked with `RegExp`, then translated into RE2's syntax with
 * JavaScript's meaning (`.` and `\s` as JavaScript has them, `\u` escapes,
 * named groups, empty classes). Two differences remain, with `ignore_case`
 * only: JavaScript then counts `ſ` and the Kelvin sign as word characters
 * for `\b`, and lets `\P{...}` match the case variants of what it
 * excludes; RE2 does neither.
 *
 * @module
 */

import { RE2JS } from "re2js";
import {
  type ClassItem,
  type CommonEscape,
  type Escape,
  type Piece,
  readPattern,
  UnsupportedPattern,
} from "./_js_pattern.ts";

/** A compiled pattern that matches in linear time. */
export interface LinearRegex {
  /**
   * Whether the pattern matches anywhere in a text, or in bytes read as UTF-8.
   *
   * @param text The text, or bytes.
   * @returns True when it matches.
   */
  test(text: string | Uint8Array): boolean;
  /**
   * Where the first match starts.
   *
   * @param text The text.
   * @returns Its index (UTF-16 units), or undefined when there is none.
   */
  index(text: string): number | undefined;
}

/** A pattern RE2 cannot take although JavaScript can (a limit, an unknown property name). */
export class PatternLimit extends Error {
  /** @param what What is not supported, as the model should read it. */
  constructor(what: string) {
    super(what);
    this.name = "PatternLimit";
  }
}

/**
 * Compile a JavaScript (`u` flag) pattern for the linear-time engine.
 *
 * @param js A pattern that `new RegExp(js, "u")` accepts.
 * @param options Case-insensitive; multiline (`^` and `$` at each line, for whole-file tests).
 * @returns The compiled pattern.
 * @throws {UnsupportedPattern} For lookaround, backreferences and lone surrogate escapes.
 * @throws {PatternLimit} When RE2 refuses it (repetitions over 1000, an unknown `\p{...}`).
 */
export function linearRegex(
  js: string,
  options: { ignoreCase: boolean; multiline?: boolean },
): LinearRegex {
  let flags = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  if (options.multiline) flags |= RE2JS.MULTILINE;
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2(js), flags);
  } catch (error) {
    if (error instanceof UnsupportedPattern) throw error;
    throw new PatternLimit(limitMessage(error instanceof Error ? error.message : String(error)));
  }
  return {
    test: (text) => re.test(text),
    index(text) {
      const matcher = re.matcher(text);
      return matcher.find() ? matcher.start() : undefined;
    },
  };
}

/** RE2's refusal, said for a model. */
function limitMessage(message: string): string {
  const detail = message.replace(/^error parsing regexp: /, "");
  if (/invalid repeat count/.test(detail)) {
    return "repetition counts over 1000 (nested repetitions multiplied) are not supported";
  }
  const property = /invalid character class range: `(\\[pP]\{[^}]*\})`/.exec(detail);
  if (property) {
    return `${
      property[1]
    } is not supported (use a general category such as \\p{L} or \\p{Lu}, or a script such as \\p{Greek})`;
  }
  if (/expression too large/.test(detail)) return "the pattern is too large";
  return detail;
}

/** JavaScript's `\s`, as the body of an RE2 class. */
const JS_SPACE = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
] as const;

const SPACE_BODY = rangesBody(JS_SPACE);
const NON_SPACE_BODY = rangesBody(complement(JS_SPACE));
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";
const ANYTHING = "[\\x{0}-\\x{10FFFF}]";
const NOTHING = "[^\\x{0}-\\x{10FFFF}]";

/** Long general-category names JavaScript takes, by RE2's short ones. */
const CATEGORY: Record<string, string> = {
  Letter: "L",
  Cased_Letter: "LC",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
};

/**
 * Translate a JavaScript (`u` flag) pattern into RE2's syntax, keeping its
 * meaning: `.` and `\s` as JavaScript has them (inside `(?s:...)`, `.`
 * matches anything), `\d \w \b` ASCII in both.
 *
 * @param js A pattern that `new RegExp(js, "u")` accepts.
 * @returns The RE2 pattern.
 * @throws {UnsupportedPattern} For lookaround, backreferences and lone surrogate escapes.
 */
export function toRe2(js: string): string {
  let out = "";
  for (const piece of readPattern(js)) out += pieceToRe2(piece, js);
  return out;
}

function pieceToRe2(piece: Piece, js: string): string {
  switch (piece.type) {
    case "char":
      return piece.char;
    case "dot":
      return piece.dotAll ? ANYTHING : DOT;
    case "group":
      return piece.name === undefined ? piece.raw : `(?P<${piece.name}>`;
    case "class":
      return classToRe2(piece, js);
    case "escape":
      return escapeToRe2(piece.escape);
  }
}

/** An escape outside a class. */
function escapeToRe2(escape: Escape): string {
  if (escape.kind === "shorthand" || escape.kind === "boundary") {
    if (escape.letter === "s") return `[${SPACE_BODY}]`;
    if (escape.letter === "S") return `[${NON_SPACE_BODY}]`;
    return `\\${escape.letter}`;
  }
  if (escape.kind === "backspace") return "\\x{8}"; // read inside classes only
  return commonToRe2(escape);
}

/** Escapes with the same meaning in and out of classes. */
function commonToRe2(escape: CommonEscape): string {
  switch (escape.kind) {
    case "control":
      return `\\${escape.letter}`;
    case "nul":
      return "\\x{0}";
    case "code":
    case "surrogates":
      return hex(escape.code);
    case "lone_surrogate":
      throw new UnsupportedPattern("escapes of lone surrogates (\\uD800-\\uDFFF)");
    case "property":
      return `\\${escape.letter}{${propertyName(escape.name)}}`;
    case "identity":
      // `\/`, `\-` and the syntax characters: the character itself, escaped for RE2.
      return `\\${escape.char}`;
  }
}

/** A `\p{...}` name in RE2's spelling: `Script=Greek` → `Greek`, `Letter` → `L`. */
function propertyName(name: string): string {
  const value = /^(?:Script|sc|General_Category|gc)=(.*)$/.exec(name)?.[1] ?? name;
  return CATEGORY[value] ?? value;
}

/** A bracket class (an empty one matches nothing, a negated empty one anything). */
function classToRe2(piece: Extract<Piece, { type: "class" }>, js: string): string {
  let body = "";
  for (const item of piece.items) body += itemToRe2(item);
  // `new RegExp` accepted the pattern, so every class is closed.
  if (!piece.closed) throw new TypeError(`Unclosed class in ${JSON.stringify(js)}`);
  if (body === "") return piece.negate ? ANYTHING : NOTHING;
  return `[${piece.negate ? "^" : ""}${body}]`;
}

function itemToRe2(item: ClassItem): string {
  if (item.type === "char") return item.char === "[" ? "\\[" : item.char;
  const escape = item.escape;
  if (escape.kind === "shorthand") {
    if (escape.letter === "s") return SPACE_BODY;
    if (escape.letter === "S") return NON_SPACE_BODY;
    return `\\${escape.letter}`;
  }
  if (escape.kind === "backspace") return "\\x{8}";
  if (escape.kind === "boundary") return `\\${escape.letter}`; // read outside classes only
  return commonToRe2(escape);
}

function hex(code: number): string {
  return `\\x{${code.toString(16)}}`;
}

/** Code point ranges as the body of an RE2 class. */
function rangesBody(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join(
    "",
  );
}

/** The code points not in sorted, disjoint ranges. */
function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}
