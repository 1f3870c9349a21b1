/**
 * Lines and words of a source text, as every symbol resolver places its
 * sites: where lines start, the line of an offset, a site's line, column
 * and text, and the pattern of a name as a whole word.
 *
 * @module
 */

/**
 * The offsets where each line of a text starts (`\n`, `\r\n` and a lone `\r` end a line).
 *
 * @param text The text.
 * @returns Line starts (the first is 0).
 */
export function lineStartsOf(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) out.push(i + 1);
  }
  return out;
}

/**
 * The 0-based line of an offset.
 *
 * @param lineStarts The text's line starts.
 * @param offset The offset.
 * @returns The line index.
 */
export function lineIndexOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Where an offset is: its 1-based line and column (UTF-16 code units), and the line's text, trimmed. */
export interface LinePlace {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** The line's text, trimmed. */
  text: string;
}

/**
 * The line, column and trimmed line text of an offset.
 *
 * @param text The text.
 * @param lineStarts Its line starts.
 * @param offset An offset in it.
 * @returns Where it is.
 */
export function placeOf(text: string, lineStarts: readonly number[], offset: number): LinePlace {
  const index = lineIndexOf(lineStarts, offset);
  const begin = lineStarts[index]!;
  const end = lineStarts[index + 1] ?? text.length;
  return { line: index + 1, column: offset - begin + 1, text: text.slice(begin, end).trim() };
}

/**
 * A name as a whole word: not inside a longer identifier (letters, digits, `_`, `$`).
 *
 * @param name The name (any characters; they are matched literally).
 * @param flags The pattern's flags besides `u` (`g` to find them all).
 * @returns The pattern.
 */
export function wordPattern(name: string, flags = ""): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, `${flags}u`);
}
