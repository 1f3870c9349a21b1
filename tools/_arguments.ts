/**
 * Arguments a tool does not take. The registry refuses a call that has one
 * (a schema would drop it and the call would quietly do something else),
 * and says which key is unknown, what the tool takes, and the name the model
 * probably meant: the one this host uses for an idea that other tools, or
 * older versions of these, spell differently, or a close spelling.
 *
 * @module
 */

/**
 * Names for an idea that the tools here spell otherwise, with the name they
 * use: their own former names, and those that other hosts' tools taught
 * models (`file_path`, `old_str`).
 */
export const RENAMED_ARGUMENTS: Readonly<Record<string, string>> = Object.freeze({
  new_content: "content",
  new_signature: "content",
  new_declaration: "content",
  class_name: "name",
  target: "name",
  src_path: "source",
  dest_path: "destination",
  dest_name: "destination_name",
  max_results: "limit",
  max_entries: "limit",
  max_count: "limit",
  max_lines: "limit",
  max_files: "limit",
  max_chars: "limit",
  skip: "offset",
  depth: "max_depth",
  file_path: "path",
  old_str: "old_string",
  new_str: "new_string",
});

/** The most unknown keys a refusal names; the rest are counted. */
const MOST_NAMED = 8;

/** The longest a key is quoted in a refusal. */
const LONGEST_QUOTED = 64;

/**
 * Why a call's arguments are refused for keys the tool does not take, or
 * undefined when every key is one of its own (or the arguments are not an
 * object: the schema says what is wrong then).
 *
 * @param tool The tool's name.
 * @param args The raw arguments.
 * @param keys The arguments the tool takes, in its schema's order.
 * @returns The message, one line, or undefined.
 * @example
 * ```ts
 * unknownArguments("get_tree", { depth: 1 }, ["path", "max_depth", "limit"]);
 * // 'Cannot call get_tree: unknown argument "depth" (did you mean "max_depth"?); it takes path, max_depth, limit'
 * ```
 */
export function unknownArguments(
  tool: string,
  args: unknown,
  keys: readonly string[],
): string | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const unknown = Object.keys(args).filter((key) => !keys.includes(key));
  if (unknown.length === 0) return undefined;
  const named = unknown.slice(0, MOST_NAMED).map((key) => {
    const quoted = JSON.stringify(key.slice(0, LONGEST_QUOTED));
    const meant = suggestArgument(key, keys);
    return meant === undefined ? quoted : `${quoted} (did you mean "${meant}"?)`;
  });
  if (unknown.length > MOST_NAMED) named.push(`${unknown.length - MOST_NAMED} more`);
  const takes = keys.length === 0 ? "it takes none" : `it takes ${keys.join(", ")}`;
  const noun = unknown.length === 1 ? "argument" : "arguments";
  return `Cannot call ${tool}: unknown ${noun} ${named.join(", ")}; ${takes}`;
}

/**
 * The argument a model most likely meant by a key the tool does not take:
 * the same name in snake_case (`maxDepth`), the name here for a known other
 * spelling ({@linkcode RENAMED_ARGUMENTS}), a close spelling (at most one
 * edit in a short name, two in a longer one), or the one argument that ends
 * with it (`depth`: `max_depth`).
 *
 * @param key The unknown key.
 * @param keys The arguments the tool takes.
 * @returns One of `keys`, or undefined when none is close.
 */
export function suggestArgument(key: string, keys: readonly string[]): string | undefined {
  const plain = snakeCase(key);
  if (keys.includes(plain)) return plain;
  const renamed = Object.hasOwn(RENAMED_ARGUMENTS, plain) ? RENAMED_ARGUMENTS[plain] : undefined;
  if (renamed !== undefined && keys.includes(renamed)) return renamed;
  const most = plain.length <= 4 ? 1 : 2;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of keys) {
    const distance = editDistance(plain, candidate, most);
    if (distance <= most && (best === undefined || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  if (best) return best.key;
  const ending = keys.filter((candidate) => candidate.endsWith(`_${plain}`));
  return ending.length === 1 ? ending[0] : undefined;
}

/** `maxDepth`, `Max-Depth` and `max depth` as `max_depth`. */
function snakeCase(key: string): string {
  return key.trim().replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[-\s]+/g, "_").toLowerCase();
}

/**
 * Levenshtein distance, or `most + 1` as soon as it must exceed `most` (the
 * lengths alone tell, for names far apart).
 */
function editDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, replace));
    }
    previous = row;
  }
  return previous[b.length]!;
}
