/**
 * JSON inside a string, for the redactor (`redact.ts`): whether a string is
 * worth parsing as JSON, and the text a redacted value is written back as.
 *
 * @module
 */

/** Longest string parsed as JSON; a longer one is left to the checks of text. */
export const MAX_JSON_CHARS = 262_144;

/**
 * Whether a string may be a JSON object or array: `{…}` or `[…]`, maybe
 * with JSON's whitespace around, and at most {@linkcode MAX_JSON_CHARS} long.
 *
 * @param text Any text.
 * @returns `true` when it is worth parsing.
 */
export function jsonLike(text: string): boolean {
  if (text.length < 2 || text.length > MAX_JSON_CHARS) return false;
  let start = 0;
  while (start < text.length && jsonSpace(text.charCodeAt(start))) start++;
  let end = text.length - 1;
  while (end > start && jsonSpace(text.charCodeAt(end))) end--;
  const open = text.charCodeAt(start);
  const close = text.charCodeAt(end);
  return (open === 123 && close === 125) || (open === 91 && close === 93);
}

/**
 * A string's JSON object or array, when it is one.
 *
 * @param text Any text.
 * @returns The parsed value, or `undefined` when {@linkcode jsonLike} says
 *   no or it does not parse.
 */
export function parsedJson(text: string): object | undefined {
  if (!jsonLike(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/**
 * A value written back as the JSON text it was parsed from: with that
 * text's leading and trailing space, its indent when it was indented, and
 * its line ends. Other spacing (`{"a": 1}`) is not kept: the value is
 * written as `JSON.stringify` writes it.
 *
 * @param text The JSON text the value was parsed from.
 * @param value The value (redacted).
 * @returns The JSON text of `value`.
 */
export function rewrittenJson(text: string, value: unknown): string {
  const lead = text.slice(0, text.length - text.trimStart().length);
  const trail = text.slice(text.trimEnd().length);
  const indent = /^[{[][ \t]*\r?\n([ \t]+)/.exec(text.slice(lead.length))?.[1];
  const json = JSON.stringify(value, null, indent);
  return lead + (text.includes("\r\n") ? json.replaceAll("\n", "\r\n") : json) + trail;
}
