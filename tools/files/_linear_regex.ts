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
import { UnsupportedPattern } from "./_ripgrep.ts";

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
  // Whether `.` matches line breaks, for each open group (modifier groups `(?s:...)` set it).
  const dotAll: boolean[] = [false];
  for (let i = 0; i < js.length; i++) {
    const c = js[i]!;
    if (c === "\\") {
      const escaped = escapeOutside(js, i);
      out += escaped.re2;
      i = escaped.end;
    } else if (c === "[") {
      const cls = classToRe2(js, i);
      out += cls.re2;
      i = cls.end;
    } else if (c === "(") {
      const group = groupToRe2(js, i, dotAll.at(-1)!);
      dotAll.push(group.dotAll);
      out += group.re2;
      i = group.end;
    } else if (c === ")") {
      if (dotAll.length > 1) dotAll.pop();
      out += c;
    } else if (c === ".") {
      out += dotAll.at(-1) ? ANYTHING : DOT;
    } else {
      out += c;
    }
  }
  return out;
}

interface Piece {
  re2: string;
  end: number;
}

/** A group's opening: lookaround refused, names in RE2's spelling, modifiers followed. */
function groupToRe2(js: string, i: number, dotAll: boolean): Piece & { dotAll: boolean } {
  const head = js.slice(i, i + 80);
  if (/^\(\?(?:=|!|<=|<!)/.test(head)) throw new UnsupportedPattern("lookahead and lookbehind");
  const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(head);
  if (named) return { re2: `(?P<${named[1]}>`, end: i + named[0].length - 1, dotAll };
  const modifiers = /^\(\?([ims]*)(?:-([ims]*))?:/.exec(head);
  if (modifiers) {
    const on = modifiers[1]!.includes("s");
    const off = (modifiers[2] ?? "").includes("s");
    return { re2: modifiers[0], end: i + modifiers[0].length - 1, dotAll: on || (dotAll && !off) };
  }
  return { re2: "(", end: i, dotAll };
}

/** An escape outside a class. */
function escapeOutside(js: string, i: number): Piece {
  const c = js[i + 1] ?? "";
  if (c === "s") return { re2: `[${SPACE_BODY}]`, end: i + 1 };
  if (c === "S") return { re2: `[${NON_SPACE_BODY}]`, end: i + 1 };
  if (/[dDwWbB]/.test(c)) return { re2: `\\${c}`, end: i + 1 };
  if (/[1-9]/.test(c) || c === "k") throw new UnsupportedPattern("backreferences");
  return commonEscape(js, i);
}

/** Escapes with the same meaning in and out of classes. */
function commonEscape(js: string, i: number): Piece {
  const c = js[i + 1] ?? "";
  if (/[nrtfv]/.test(c)) return { re2: `\\${c}`, end: i + 1 };
  if (c === "0") return { re2: "\\x{0}", end: i + 1 };
  if (c === "c") return { re2: hex(js.charCodeAt(i + 2) & 31), end: i + 2 };
  if (c === "x") return { re2: hex(parseInt(js.slice(i + 2, i + 4), 16)), end: i + 3 };
  if (c === "u") return unicodeEscape(js, i);
  if (c === "p" || c === "P") {
    const prop = /^[pP]\{([^}]*)\}/.exec(js.slice(i + 1, i + 80));
    if (prop) return { re2: `\\${c}{${propertyName(prop[1]!)}}`, end: i + prop[0].length };
  }
  // `\/`, `\-` and the syntax characters: the character itself, escaped for RE2.
  return { re2: `\\${c}`, end: i + 1 };
}

/** `\uXXXX` (a surrogate pair as one code point) or `\u{X...}`. */
function unicodeEscape(js: string, i: number): Piece {
  const braced = /^u\{([0-9A-Fa-f]+)\}/.exec(js.slice(i + 1, i + 12));
  if (braced) return { re2: hex(parseInt(braced[1]!, 16)), end: i + braced[0].length };
  const code = parseInt(js.slice(i + 2, i + 6), 16);
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(js.slice(i + 6, i + 12));
    if (low) {
      const point = 0x10000 + ((code - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00);
      return { re2: hex(point), end: i + 11 };
    }
  }
  if (code >= 0xd800 && code <= 0xdfff) {
    throw new UnsupportedPattern("escapes of lone surrogates (\\uD800-\\uDFFF)");
  }
  return { re2: hex(code), end: i + 5 };
}

/** A `\p{...}` name in RE2's spelling: `Script=Greek` → `Greek`, `Letter` → `L`. */
function propertyName(name: string): string {
  const value = /^(?:Script|sc|General_Category|gc)=(.*)$/.exec(name)?.[1] ?? name;
  return CATEGORY[value] ?? value;
}

/** A bracket class. */
function classToRe2(js: string, start: number): Piece {
  let i = start + 1;
  const negate = js[i] === "^";
  if (negate) i++;
  let body = "";
  for (; i < js.length; i++) {
    const c = js[i]!;
    if (c === "]") {
      if (body === "") return { re2: negate ? ANYTHING : NOTHING, end: i };
      return { re2: `[${negate ? "^" : ""}${body}]`, end: i };
    }
    if (c === "\\") {
      const e = js[i + 1] ?? "";
      if (e === "s") body += SPACE_BODY;
      else if (e === "S") body += NON_SPACE_BODY;
      else if (/[dDwW]/.test(e)) body += `\\${e}`;
      else if (e === "b") body += "\\x{8}";
      else {
        const escaped = commonEscape(js, i);
        body += escaped.re2;
        i = escaped.end;
        continue;
      }
      i++;
    } else if (c === "[") {
      body += "\\[";
    } else {
      body += c;
    }
  }
  // `new RegExp` accepted the pattern, so every class is closed.
  throw new TypeError(`Unclosed class in ${JSON.stringify(js)}`);
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
