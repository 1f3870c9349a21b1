/**
 * Text made safe to show a person: control characters and invisible
 * direction marks from untrusted text (a command an agent ran, its output,
 * a file name, a tool's arguments, a project's config) are shown escaped,
 * so that none reaches a terminal (ESC/CSI/OSC sequences can clear the
 * screen, set the window title or write the clipboard) or reorders what a
 * reader sees ("Trojan Source" bidi controls).
 *
 * The scheme, one for every place that prints:
 *
 * - `\e` ESC, `\a` BEL, `\r` CR, `\n` LF, `\t` TAB;
 * - `\u{HEX}` (upper-case hex code point, at least two digits) for every
 *   other C0 control (U+0000–U+001F), DEL (U+007F), every C1 control
 *   (U+0080–U+009F, which some terminals take for CSI or OSC), the bidi
 *   controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the
 *   line and paragraph separators (U+2028, U+2029) and a lone surrogate
 *   (U+D800–U+DFFF not part of a pair);
 * - a backslash is always `\\`: every single backslash in the result starts
 *   an escape, so a literal `\e` in the input (`\\e`) never reads as ESC,
 *   and the original text is recoverable.
 *
 * Only LF and TAB may be kept, where the caller says so; everything else
 * printable (any other Unicode, including emoji and CJK) is left as it is.
 *
 * {@linkcode printableJson} does the same for JSON text with JSON's own
 * escapes, and {@linkcode PRINTABLE_SCRIPT} is both functions as page
 * JavaScript, for the dashboard.
 *
 * @module
 */

/** What {@linkcode printable} may leave as it is. */
export interface PrintableOptions {
  /** Keep line feeds (text shown as lines); else `\n`. Default false. */
  keepNewlines?: boolean;
  /** Keep tabs; else `\t`. Default false. */
  keepTabs?: boolean;
}

/** Every character {@linkcode printable} escapes (the backslash among them). */
const UNPRINTABLE =
  // deno-lint-ignore no-control-regex -- the control characters are what it finds
  /[\0-\x1f\\\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/** The characters JSON text must still escape: {@linkcode UNPRINTABLE} but for `\`, LF and TAB. */
const JSON_UNPRINTABLE =
  // deno-lint-ignore no-control-regex -- the control characters are what it finds
  /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/** The characters with a short name. */
const NAMED_ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  "\x07": "\\a",
  "\x1b": "\\e",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\\": "\\\\",
});

/**
 * Show text safely on a terminal or a page: control characters, bidi
 * controls and lone surrogates escaped, a backslash doubled (the scheme is
 * in this module's documentation).
 *
 * @example Escape an OSC sequence and keep the rest
 * ```ts
 * import { printable } from "./printable.ts";
 *
 * printable("\x1b]0;pwned\x07 ok"); // => "\\e]0;pwned\\a ok"
 * printable("a\tb\\c", { keepTabs: true }); // => "a\tb\\\\c"
 * ```
 *
 * @param text Any text, lone surrogates included.
 * @param options Whether line feeds and tabs are kept.
 * @returns The text with nothing a terminal would act on or a reader could not see.
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  return text.replace(UNPRINTABLE, (char) => {
    if ((char === "\n" && options.keepNewlines) || (char === "\t" && options.keepTabs)) return char;
    return NAMED_ESCAPES[char] ??
      `\\u{${char.codePointAt(0)!.toString(16).toUpperCase().padStart(2, "0")}}`;
  });
}

/**
 * Make JSON text (as `JSON.stringify` writes it, pretty or not) safe to
 * show: what it leaves unescaped that {@linkcode printable} escapes (DEL,
 * C1 and bidi controls, the separators) becomes a JSON `\uXXXX` escape, so
 * the text stays JSON of the same value. Its line feeds and tabs (a pretty
 * print's layout) and its backslashes (already JSON's escapes) are kept.
 *
 * @example
 * ```ts
 * import { printableJson } from "./printable.ts";
 *
 * printableJson(JSON.stringify({ name: "a\u202Eb" })); // => '{"name":"a\\u202eb"}'
 * ```
 *
 * @param json JSON text.
 * @returns The same JSON value, with no control character left raw.
 */
export function printableJson(json: string): string {
  return json.replace(
    JSON_UNPRINTABLE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * {@linkcode printable} and {@linkcode printableJson} as plain JavaScript
 * for a page (the dashboard's script embeds it): made from the functions'
 * own compiled source and the constants they use, so there is one
 * definition. Whatever they come to use must be added here;
 * `tests/security/printable_test.ts` runs this text alone to make sure.
 */
export const PRINTABLE_SCRIPT: string = [
  `const UNPRINTABLE = ${UNPRINTABLE};`,
  `const JSON_UNPRINTABLE = ${JSON_UNPRINTABLE};`,
  `const NAMED_ESCAPES = Object.freeze(${JSON.stringify(NAMED_ESCAPES)});`,
  String(printable),
  String(printableJson),
].join("\n");
