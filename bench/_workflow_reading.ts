/**
 * What an agent without code tools does in its head with the Python text it
 * has read (server-filesystem's agent in the workflow bench): find `class`
 * and `def` lines, cut a definition out by indentation, and tell a name used
 * as code from the same word in a comment or a string (an `__all__` entry
 * counts as a use). It costs no call; every character it reads was paid for
 * by the read that brought the text.
 *
 * @module
 */

/** A name's occurrence in code. */
export interface Occurrence {
  /** 1-based line. */
  line: number;
  /** Offset in the text. */
  index: number;
  /** `name` in code, `string` for an `__all__` entry. */
  kind: "name" | "string";
}

const PREFIX = /^(?:r|u|b|f|br|rb|fr|rf)$/i;

/** Where the string literal starting at `at` (its opening quote) ends: the offset after it. */
function stringEnd(text: string, at: number): number {
  const quote = text[at]!;
  const triple = text.startsWith(quote.repeat(3), at);
  const close = triple ? quote.repeat(3) : quote;
  let i = at + close.length;
  while (i < text.length) {
    if (text[i] === "\\") i += 2;
    else if (text.startsWith(close, i)) return i + close.length;
    else if (!triple && text[i] === "\n") return i;
    else i++;
  }
  return text.length;
}

/** The spans of `__all__ = [...]` (and `+=`, tuples) in a module. */
function allSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const match of text.matchAll(/^__all__\s*\+?=\s*[[(]/gm)) {
    let depth = 0;
    let i = match.index + match[0].length - 1;
    for (; i < text.length; i++) {
      if (text[i] === "[" || text[i] === "(") depth++;
      else if (text[i] === "]" || text[i] === ")") depth--;
      if (depth === 0) break;
    }
    spans.push([match.index, i]);
  }
  return spans;
}

/** The 1-based line of an offset, given the offsets where lines start. */
function lineAt(starts: readonly number[], index: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= index) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/**
 * Where a name is used as code in a module: identifiers equal to it outside
 * comments and strings, and string entries equal to it inside `__all__`.
 *
 * @param text The module.
 * @param name The name.
 * @returns The occurrences, in order.
 */
export function occurrences(text: string, name: string): Occurrence[] {
  const starts = [0, ...[...text.matchAll(/\n/g)].map((match) => match.index + 1)];
  const spans = allSpans(text);
  const found: Occurrence[] = [];
  const add = (index: number, kind: Occurrence["kind"]) =>
    found.push({ line: lineAt(starts, index), index, kind });
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "#") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(text, i);
      const inAll = spans.some(([from, to]) => i > from && i < to);
      if (inAll && text.slice(i + 1, end - 1) === name) add(i + 1, "string");
      i = end;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^\w+/.exec(text.slice(i, i + 200))![0];
      const quoted = text[i + word.length] === '"' || text[i + word.length] === "'";
      if (word === name && !quoted) add(i, "name");
      i += quoted && PREFIX.test(word) ? word.length : Math.max(word.length, 1);
    } else i++;
  }
  return found;
}

/** The indentation of a line. */
function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].length;
}

/**
 * The 0-based lines [first, last] of the definition whose `class`/`def` is
 * on line `at` (0-based): decorators above it, its body by indentation.
 *
 * @param lines The module's lines.
 * @param at The `class`/`def` line.
 * @returns First and last line, inclusive.
 */
export function definitionLines(lines: readonly string[], at: number): [number, number] {
  const indent = indentOf(lines[at]!);
  let first = at;
  while (
    first > 0 && lines[first - 1]!.trim().startsWith("@") && indentOf(lines[first - 1]!) === indent
  ) {
    first--;
  }
  let last = at;
  for (let j = at + 1; j < lines.length; j++) {
    if (lines[j]!.trim() === "") continue;
    if (indentOf(lines[j]!) <= indent) break;
    last = j;
  }
  return [first, last];
}

/**
 * Find a definition by dotted name (`f`, `Class.method`) in a module.
 *
 * @param text The module.
 * @param dotted The dotted name.
 * @returns Its source (decorators to last line) and its `class`/`def` line (1-based), or undefined.
 */
export function findDefinition(
  text: string,
  dotted: string,
): { text: string; line: number } | undefined {
  const lines = text.split("\n");
  let [from, to] = [0, lines.length - 1];
  let at = -1;
  for (const [depth, part] of dotted.split(".").entries()) {
    const pattern = new RegExp(
      `^\\s${depth === 0 ? "{0}" : "+"}(?:async\\s+)?(?:class|def)\\s+${part}\\b`,
    );
    at = lines.findIndex((line, i) => i >= from && i <= to && pattern.test(line));
    if (at === -1) return undefined;
    [from, to] = definitionLines(lines, at);
    from = at + 1;
  }
  const [first, last] = definitionLines(lines, at);
  return { text: lines.slice(first, last + 1).join("\n") + "\n", line: at + 1 };
}
