/**
 * `grep`'s patterns (JavaScript's dialect, `u` flag) read piece by piece,
 * for the two translators that rewrite them: `toRe2` for the linear-time
 * engine (`_linear_regex.ts`) and `toRustRegex` for ripgrep
 * (`_rust_regex.ts`). Reading is shared, and refuses what neither dialect
 * has (lookaround, backreferences); what a piece becomes is each
 * translator's.
 *
 * @module
 */

/** A construct the supported dialect leaves out (lookaround, backreferences). */
export class UnsupportedPattern extends Error {
  /** @param what What is not supported. */
  constructor(what: string) {
    super(what);
    this.name = "UnsupportedPattern";
  }
}

/** The escapes that mean the same in and out of a bracket class. */
export type CommonEscape =
  /** `\n \r \t \f \v`. */
  | { kind: "control"; letter: string }
  /** `\0`. */
  | { kind: "nul" }
  /** `\cX`, `\xHH`, `\uHHHH`, `\u{H…}`: `digits` as written (for `\cX`, the code in hex). */
  | { kind: "code"; code: number; digits: string }
  /** `\uD83D\uDE00`: one code point written as a surrogate pair. */
  | { kind: "surrogates"; code: number }
  /** `\uD800` alone. */
  | { kind: "lone_surrogate" }
  /** `\p{…}` or `\P{…}`, the name as written. */
  | { kind: "property"; letter: string; name: string }
  /** Any other escaped character (`\/`, `\-`, `\.`). */
  | { kind: "identity"; char: string };

/** An escape, decoded. */
export type Escape =
  | CommonEscape
  /** `\d \D \w \W \s \S`. */
  | { kind: "shorthand"; letter: string }
  /** `\b` or `\B` outside a class. */
  | { kind: "boundary"; letter: string }
  /** `\b` inside a class. */
  | { kind: "backspace" };

/** What a bracket class holds, in order. */
export type ClassItem = { type: "char"; char: string } | { type: "escape"; escape: Escape };

/** One piece of a pattern. */
export type Piece =
  /** A character that stands for itself (`)`, `|` and quantifiers included). */
  | { type: "char"; char: string }
  /** `.`, and whether a modifier group (`(?s:…)`) around it lets it match line breaks. */
  | { type: "dot"; dotAll: boolean }
  /** An escape outside a class. */
  | { type: "escape"; escape: Escape }
  /** A bracket class; `closed` is false when the pattern ends inside it. */
  | { type: "class"; negate: boolean; items: ClassItem[]; closed: boolean }
  /** A group's opening as written (`(`, `(?:`, `(?i-s:`, `(?<name>`), with its name if any. */
  | { type: "group"; raw: string; name: string | undefined };

/** A decoded escape and the index of its last character. */
interface Read<T> {
  value: T;
  end: number;
}

/**
 * The pieces of a pattern, in order. A generator: a translator that stops
 * early (ripgrep cannot take a line break) reads no further.
 *
 * @param js A pattern that `new RegExp(js, "u")` accepts.
 * @returns The pieces.
 * @throws {UnsupportedPattern} For lookaround and backreferences, where they come.
 */
export function* readPattern(js: string): Generator<Piece> {
  // Whether `.` matches line breaks, for each open group (modifier groups `(?s:...)` set it).
  const dotAll: boolean[] = [false];
  for (let i = 0; i < js.length; i++) {
    const c = js[i]!;
    let read: Read<Piece> | undefined;
    if (c === "\\") {
      const escaped = escapeOutside(js, i);
      read = { value: { type: "escape", escape: escaped.value }, end: escaped.end };
    } else if (c === "[") {
      read = classAt(js, i);
    } else if (c === "(") {
      const group = groupAt(js, i, dotAll.at(-1)!);
      dotAll.push(group.dotAll);
      read = group;
    } else if (c === ")") {
      if (dotAll.length > 1) dotAll.pop();
    } else if (c === ".") {
      read = { value: { type: "dot", dotAll: dotAll.at(-1)! }, end: i };
    }
    read ??= { value: { type: "char", char: c }, end: i };
    yield read.value;
    i = read.end;
  }
}

/** A group's opening: lookaround refused, a name read, modifiers followed. */
function groupAt(js: string, i: number, dotAll: boolean): Read<Piece> & { dotAll: boolean } {
  const head = js.slice(i, i + 80);
  if (/^\(\?(?:=|!|<=|<!)/.test(head)) throw new UnsupportedPattern("lookahead and lookbehind");
  const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(head);
  if (named) {
    const value: Piece = { type: "group", raw: named[0], name: named[1] };
    return { value, end: i + named[0].length - 1, dotAll };
  }
  const modifiers = /^\(\?([ims]*)(?:-([ims]*))?:/.exec(head);
  if (modifiers) {
    const on = modifiers[1]!.includes("s");
    const off = (modifiers[2] ?? "").includes("s");
    const value: Piece = { type: "group", raw: modifiers[0], name: undefined };
    return { value, end: i + modifiers[0].length - 1, dotAll: on || (dotAll && !off) };
  }
  return { value: { type: "group", raw: "(", name: undefined }, end: i, dotAll };
}

/** A bracket class, read to its `]` (or to the end of the pattern). */
function classAt(js: string, start: number): Read<Piece> {
  let i = start + 1;
  const negate = js[i] === "^";
  if (negate) i++;
  const items: ClassItem[] = [];
  for (; i < js.length; i++) {
    const c = js[i]!;
    if (c === "]") return { value: { type: "class", negate, items, closed: true }, end: i };
    if (c === "\\") {
      const escaped = escapeInClass(js, i);
      items.push({ type: "escape", escape: escaped.value });
      i = escaped.end;
    } else {
      items.push({ type: "char", char: c });
    }
  }
  return { value: { type: "class", negate, items, closed: false }, end: js.length };
}

/** An escape outside a class. */
function escapeOutside(js: string, i: number): Read<Escape> {
  const c = js[i + 1] ?? "";
  if (/[dDwWsS]/.test(c)) return { value: { kind: "shorthand", letter: c }, end: i + 1 };
  if (c === "b" || c === "B") return { value: { kind: "boundary", letter: c }, end: i + 1 };
  if (/[1-9]/.test(c) || c === "k") throw new UnsupportedPattern("backreferences");
  return commonEscape(js, i);
}

/** An escape inside a class. */
function escapeInClass(js: string, i: number): Read<Escape> {
  const c = js[i + 1] ?? "";
  if (/[dDwWsS]/.test(c)) return { value: { kind: "shorthand", letter: c }, end: i + 1 };
  if (c === "b") return { value: { kind: "backspace" }, end: i + 1 };
  return commonEscape(js, i);
}

/** Escapes with the same meaning in and out of classes. */
function commonEscape(js: string, i: number): Read<CommonEscape> {
  const c = js[i + 1] ?? "";
  if (/[nrtfv]/.test(c)) return { value: { kind: "control", letter: c }, end: i + 1 };
  if (c === "0") return { value: { kind: "nul" }, end: i + 1 };
  if (c === "c") {
    const code = js.charCodeAt(i + 2) & 31;
    return { value: { kind: "code", code, digits: code.toString(16) }, end: i + 2 };
  }
  if (c === "x") {
    const digits = js.slice(i + 2, i + 4);
    return { value: { kind: "code", code: parseInt(digits, 16), digits }, end: i + 3 };
  }
  if (c === "u") return unicodeEscape(js, i);
  if (c === "p" || c === "P") {
    const prop = /^[pP]\{([^}]*)\}/.exec(js.slice(i + 1, i + 80));
    if (prop) {
      return { value: { kind: "property", letter: c, name: prop[1]! }, end: i + prop[0].length };
    }
  }
  return { value: { kind: "identity", char: c }, end: i + 1 };
}

/** `\uXXXX` (a surrogate pair as one code point) or `\u{X...}`. */
function unicodeEscape(js: string, i: number): Read<CommonEscape> {
  const braced = /^u\{([0-9A-Fa-f]+)\}/.exec(js.slice(i + 1, i + 12));
  if (braced) {
    const digits = braced[1]!;
    return {
      value: { kind: "code", code: parseInt(digits, 16), digits },
      end: i + braced[0].length,
    };
  }
  const digits = js.slice(i + 2, i + 6);
  const code = parseInt(digits, 16);
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(js.slice(i + 6, i + 12));
    if (low) {
      const point = 0x10000 + ((code - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00);
      return { value: { kind: "surrogates", code: point }, end: i + 11 };
    }
  }
  if (code >= 0xd800 && code <= 0xdfff) return { value: { kind: "lone_surrogate" }, end: i + 5 };
  return { value: { kind: "code", code, digits }, end: i + 5 };
}
