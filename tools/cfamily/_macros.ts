/**
 * Blanking the macros C headers wrap declarations in, so that a parser
 * without a preprocessor sees the declaration the compiler sees:
 * `ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));`,
 * `BZ_EXTERN int BZ_API(BZ2_bzCompressInit) (…);`,
 * `extern void *memcpy (…) __THROW __nonnull ((1, 2));`. The rules are about
 * shapes, not names: a macro around a parameter list, a macro around a name
 * followed by a parameter list, reserved (`__x`) or ALL_CAPS words between a
 * parameter list and its `;` or body, and ALL_CAPS or `__x` words beside a
 * real type in a declaration's head. Blanking keeps every offset.
 *
 * @module
 */

/** Words after which a parenthesis is not a parameter list. */
const NOT_DECLARATOR = new Set(
  (
    "return sizeof if while for switch case else do goto throw new delete defined alignof " +
    "_Alignof decltype typeof __typeof__ static_assert _Static_assert co_return co_await " +
    "co_yield __attribute__ __declspec __asm__ __asm asm operator typename using"
  ).split(" "),
);

/** Words of a declaration's head that are not its type. */
const SPECIFIERS = new Set(
  (
    "extern static inline const volatile restrict register auto _Noreturn noreturn virtual " +
    "explicit friend constexpr consteval mutable thread_local _Thread_local typedef"
  ).split(" "),
);

/** Reserved words the grammars know (`__inline__`, `__stdcall`): never blanked, not a type. */
const PARSER_KEYWORDS = new Set(
  (
    "__inline __inline__ __forceinline __extension__ __restrict __restrict__ __thread " +
    "__volatile__ __cdecl __clrcall __fastcall __stdcall __thiscall __vectorcall __unaligned " +
    "__based"
  ).split(" "),
);

/** Words after which the next word is a tag, part of the type. */
const TAG_KEYWORDS = new Set(["struct", "union", "enum", "class"]);

/** The farthest a balanced parenthesis group is looked for (characters), and its deepest nesting. */
const MAX_GROUP = 4096;
const MAX_DEPTH = 32;

/** A macro word: ALL_CAPS (two characters or more) or reserved (`__nonnull`). */
const MACRO_WORD = /^(?:[A-Z_][A-Z0-9_]+|__\w+)$/;

/**
 * Blank the declaration-wrapping macros of C or C++ text (see the module).
 *
 * @param text The source (conditionals may already be blanked).
 * @returns The same-length text.
 */
export function maskDeclarationMacros(text: string): string {
  const lists = wrappedParameterLists(text);
  const claimed = new Set(lists.map(([from]) => from));
  const ranges = [
    ...lists,
    ...wrappedNames(text),
    ...redirects(text),
    ...trailingAttributes(text, claimed),
    ...pointerQualifiers(text),
  ];
  const first = blankRanges(text, ranges);
  return blankRanges(first, headDecorations(first));
}

/**
 * `name OF((params))` and `(*f) OF((params))`: the macro and its outer
 * parentheses (not `F((1, 2))`: a parameter list starts with a word).
 */
function wrappedParameterLists(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const match of text.matchAll(/\b([A-Z_][A-Z0-9_]+)[ \t]*\(\s*\(\s*[A-Za-z_]/g)) {
    const start = match.index;
    if (!afterDeclarator(text, start)) continue;
    const outer = text.indexOf("(", start + match[1]!.length);
    const inner = text.indexOf("(", outer + 1);
    const innerClose = closingParen(text, inner);
    if (innerClose < 0) continue;
    const outerClose = skipSpace(text, innerClose + 1);
    if (text[outerClose] !== ")") continue;
    out.push([start, outer + 1], [outerClose, outerClose + 1]);
  }
  return out;
}

/** `BZ_API(name) (params)`: the macro and the parentheses around the name. */
function wrappedNames(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const shape = /\b([A-Z_][A-Z0-9_]+)[ \t]*\([ \t]*[A-Za-z_]\w*[ \t]*(\))(?=\s*\()/g;
  for (const match of text.matchAll(shape)) {
    const start = match.index;
    const before = text.slice(Math.max(0, start - 80), start).match(/([\w*])\s*$/);
    if (!before || NOT_DECLARATOR.has(wordBefore(text, start))) continue;
    const open = text.indexOf("(", start + match[1]!.length);
    const close = start + match[0].length - 1;
    out.push([start, open + 1], [close, close + 1]);
  }
  return out;
}

/**
 * glibc's `__REDIRECT (name, (params), alias)`: a macro whose first argument
 * is a name and whose second is a parameter list declares `name (params)`;
 * the macro, the commas and what follows the parameter list are blanked.
 */
function redirects(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const shape = /\b([A-Z_][A-Z0-9_]+|__\w+)[ \t]*\(\s*[A-Za-z_]\w*\s*(,)\s*\(/g;
  for (const match of text.matchAll(shape)) {
    const start = match.index;
    if (!/[\w*]\s*$/.test(text.slice(Math.max(0, start - 80), start))) continue;
    if (NOT_DECLARATOR.has(wordBefore(text, start)) || NOT_DECLARATOR.has(match[1]!)) continue;
    const open = text.indexOf("(", start + match[1]!.length);
    const close = closingParen(text, open);
    const params = start + match[0].length - 1;
    const paramsClose = closingParen(text, params);
    if (close < 0 || paramsClose < 0) continue;
    const comma = start + match[0].indexOf(",", match[0].indexOf("("));
    out.push([start, open + 1], [comma, comma + 1], [paramsClose + 1, close + 1]);
  }
  return out;
}

/**
 * `void FAR *p`, `char FAR * FAR *`: an ALL_CAPS word between a type word
 * (not a specifier: `const FILE *f` keeps its type) or a `*`, and a `*`.
 */
function pointerQualifiers(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const match of text.matchAll(/([\w*])[ \t]+([A-Z_][A-Z0-9_]+)[ \t]*\*/g)) {
    const start = match.index + match[0].indexOf(match[2]!, 1);
    const before = wordBefore(text, start);
    if (match[1] !== "*" && (NOT_DECLARATOR.has(before) || SPECIFIERS.has(before))) continue;
    out.push([start, start + match[2]!.length]);
  }
  return out;
}

/**
 * `) __THROW __nonnull ((1, 2)) __wur;` and `) FOO_DEPRECATED(x) {`: macro
 * words (and their argument groups) between a parameter list and its `;`,
 * `{`, `=` or `,`. C++'s `const`, `noexcept`, `override` and `final` stay;
 * `claimed` are the starts of `OF((…))` wrappers, which stay too.
 */
function trailingAttributes(text: string, claimed: Set<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const match of text.matchAll(/\)(?=\s*(?:[A-Z_][A-Z0-9_]+|__\w+)\b)/g)) {
    const found: Array<[number, number]> = [];
    let at = match.index + 1;
    for (let words = 0; words < 16; words++) {
      const from = skipSpace(text, at);
      const word = /^[A-Za-z_]\w*/.exec(text.slice(from, from + 256))?.[0];
      if (!word || claimed.has(from)) break;
      let to = from + word.length;
      const next = skipSpace(text, to);
      if (text[next] === "(") {
        const close = closingParen(text, next);
        if (close < 0) break;
        to = close + 1;
      }
      if (MACRO_WORD.test(word)) found.push([from, to]);
      else if (!/^(?:const|noexcept|override|final|volatile)$/.test(word)) break;
      at = to;
    }
    const end = skipSpace(text, at);
    if (found.length === 0 || !/[;{=,]/.test(text[end] ?? "")) continue;
    const open = openingParen(text, match.index);
    if (open >= 0 && afterDeclarator(text, open)) out.push(...found);
  }
  return out;
}

/**
 * `ZEXTERN int ZEXPORT name (` and `__extern_always_inline void *\nname (`:
 * the words before a name and its `(` that are macro words. When the first
 * type-position word is a macro, it stays as the type (so the declaration
 * still starts where it is written) and the other type words are blanked;
 * otherwise every macro word is.
 */
function headDecorations(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const head = /^[ \t]*((?:[A-Za-z_]\w*(?:\s|\*)+){1,8})([A-Za-z_]\w*)\s*\(/gm;
  for (const match of text.matchAll(head)) {
    if (NOT_DECLARATOR.has(match[2]!)) continue;
    const words = [...match[1]!.matchAll(/[A-Za-z_]\w*/g)];
    if (words.some((word) => NOT_DECLARATOR.has(word[0]))) continue;
    const isMacro = (i: number) =>
      MACRO_WORD.test(words[i]![0]) && !PARSER_KEYWORDS.has(words[i]![0]) &&
      !TAG_KEYWORDS.has(words[i - 1]?.[0] ?? "");
    const typeWords = words.flatMap((word, i) =>
      SPECIFIERS.has(word[0]) || PARSER_KEYWORDS.has(word[0]) ? [] : [i]
    );
    if (!typeWords.some(isMacro)) continue;
    const kept = isMacro(typeWords[0]!) ? typeWords[0] : undefined;
    const blanked = kept === undefined ? typeWords.filter(isMacro) : typeWords.slice(1);
    const offset = match.index + match[0].indexOf(match[1]!);
    for (const i of blanked) {
      out.push([offset + words[i]!.index, offset + words[i]!.index + words[i]![0].length]);
    }
  }
  return out;
}

/** Whether the `(` at `open` follows a declarator: a name (not a keyword) or a `)`. */
function afterDeclarator(text: string, open: number): boolean {
  let at = open - 1;
  while (at >= 0 && /\s/.test(text[at]!)) at--;
  if (text[at] === ")") return true;
  const word = wordBefore(text, open);
  return word !== "" && !NOT_DECLARATOR.has(word);
}

/** The word that ends just before `at` (spaces skipped), or "". */
function wordBefore(text: string, at: number): string {
  return text.slice(Math.max(0, at - 80), at).match(/([A-Za-z_]\w*)\s*$/)?.[1] ?? "";
}

/** The first index at or after `at` that is not white space. */
function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

/** The `)` that closes the `(` at `open` (string literals skipped), or -1 within {@linkcode MAX_GROUP}. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  const end = Math.min(text.length, open + MAX_GROUP);
  for (let at = open; at < end; at++) {
    const char = text[at];
    if (char === '"' || char === "'") {
      at = literalEnd(text, at, end);
    } else if (char === "(") {
      if (++depth > MAX_DEPTH) return -1;
    } else if (char === ")" && --depth === 0) {
      return at;
    } else if (char === ";" || char === "{" || char === "}") {
      return -1;
    }
  }
  return -1;
}

/** The `(` that the `)` at `close` closes (no literals looked into), or -1 within {@linkcode MAX_GROUP}. */
function openingParen(text: string, close: number): number {
  let depth = 0;
  const end = Math.max(0, close - MAX_GROUP);
  for (let at = close; at >= end; at--) {
    const char = text[at];
    if (char === ")" && ++depth > MAX_DEPTH) return -1;
    else if (char === "(" && --depth === 0) return at;
    else if (char === ";" || char === "{" || char === "}") return -1;
  }
  return -1;
}

/** The index of the quote that ends the literal opened at `at` (or `end`). */
function literalEnd(text: string, at: number, end: number): number {
  const quote = text[at];
  for (let i = at + 1; i < end; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote || text[i] === "\n") return i;
  }
  return end;
}

/** The text with every non-space character in the ranges turned into a space. */
function blankRanges(text: string, ranges: Array<[number, number]>): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [from, to] of sorted) {
    if (to <= at) continue;
    const start = Math.max(from, at);
    out += text.slice(at, start) + text.slice(start, to).replace(/[^\s]/g, " ");
    at = to;
  }
  return out + text.slice(at);
}
