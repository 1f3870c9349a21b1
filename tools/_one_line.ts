/**
 * A declaration on one line, for the file summaries the language families
 * give `get_file_summary`.
 *
 * @module
 */

/**
 * A text on one line: white space runs folded, at most 160 characters.
 *
 * @param text The text (an import, a declaration).
 * @returns The text on one line, cut with `...` past 160 characters.
 */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
