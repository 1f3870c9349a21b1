/**
 * The words of a Python file that could be a site of a symbol, for the word
 * index (`tools/symbols/_word_index.ts`): every word of its code, of its
 * f-strings (their fields are code), and of the string literals whose whole
 * value is a name (`__all__` entries, `getattr(obj, "name")`). Words only in
 * comments and in other strings (docstrings, messages) are left out: the
 * resolver finds no site there, so a file that names a symbol only in prose
 * is not parsed for it. A lexer, not a parser: a file it misreads (an
 * unterminated string) keeps more words, never fewer, up to the line's end.
 *
 * @module
 */

import { wordsOf } from "../symbols/_word_index.ts";

/** A comment, or the start of a string literal (its prefix and quote). */
const START = /#[^\n]*|([A-Za-z]{0,2})('''|"""|'|")/g;

/** A string value that is a (dotted) name, as `__all__` and `getattr` strings are. */
const NAME_VALUE = /^[\p{ID_Start}_][\p{ID_Continue}]*(?:\.[\p{ID_Start}_][\p{ID_Continue}]*)*$/u;

/**
 * The words of a Python text's code, f-strings and name-valued strings.
 *
 * @param text The source.
 * @returns Its words, each once.
 * @example
 * ```ts
 * import { pythonWords } from "./_words.ts";
 * pythonWords('x = get("Message")  # a Message'); // ["x", "get", "Message"]
 * pythonWords('"""A Message."""\ny = 1'); // ["y"]
 * ```
 */
export function pythonWords(text: string): string[] {
  const kept: string[] = [];
  let code = 0;
  START.lastIndex = 0;
  for (let match = START.exec(text); match; match = START.exec(text)) {
    const [whole, prefix, quote] = match;
    if (quote === undefined) {
      kept.push(text.slice(code, match.index));
      code = START.lastIndex = match.index + whole.length;
      continue;
    }
    if (!/^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])?$/.test(prefix!)) {
      // Letters before a quote that are no prefix (`x"`): the word is code, the quote starts a string.
      START.lastIndex = match.index + prefix!.length;
      continue;
    }
    const open = match.index + whole.length;
    const close = stringEnd(text, open, quote);
    const value = text.slice(open, Math.max(open, close - quote.length));
    if (/[fF]/.test(prefix!) || NAME_VALUE.test(value)) kept.push(text.slice(code, close));
    else kept.push(text.slice(code, match.index + prefix!.length));
    code = START.lastIndex = close;
  }
  kept.push(text.slice(code));
  return wordsOf(kept.join("\n"));
}

/** Where a string that opened at `from` ends (after its closing quote, or at its line's or text's end). */
function stringEnd(text: string, from: number, quote: string): number {
  const long = quote.length === 3;
  for (let at = from; at < text.length; at++) {
    const char = text[at];
    if (char === "\\") at++;
    else if (char === "\n" && !long) return at;
    else if (text.startsWith(quote, at)) return at + quote.length;
  }
  return text.length;
}
