/**
 * `.gitignore` semantics for the walkers, as git has them: one rule per
 * line, `#` comments, `!` re-includes, a leading or inner `/` anchors the
 * rule to its file's directory (otherwise it matches a name at any depth), a
 * trailing `/` matches directories only, `*` and `?` stay inside one segment,
 * `**` crosses segments, `[a-z]`/`[!a]` are classes and `\` escapes. Within a
 * file the last matching rule wins; a deeper file wins over a shallower one.
 * A directory that is ignored is not descended, so nothing under it can be
 * re-included (as in git).
 *
 * @module
 */

/** One compiled rule of a `.gitignore` file. */
export interface IgnoreRule {
  /** Matches a path relative to the rule file's directory. */
  readonly re: RegExp;
  /** `!pattern`: re-include what an earlier rule ignored. */
  readonly negate: boolean;
  /** `pattern/`: applies to directories only. */
  readonly dirOnly: boolean;
}

/** The rules of one `.gitignore` file and where it sits. */
interface Level {
  /** Its directory, relative to the root ("" for the root). */
  readonly base: string;
  readonly rules: readonly IgnoreRule[];
}

/**
 * Parse the text of a `.gitignore` file.
 *
 * @param text The file's content.
 * @returns Its rules, in file order (lines that are not rules are dropped).
 * @example
 * ```ts
 * const rules = parseGitignore("*.pyc\n!keep.pyc\n/build/\n");
 * ```
 */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    line = trimTrailingSpaces(line);
    if (line === "" || line.startsWith("#")) continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/") && !line.endsWith("\\/")) {
      dirOnly = true;
      line = line.replace(/\/+$/, "");
    }
    if (line === "") continue;
    const source = patternSource(line);
    if (source === undefined) continue;
    rules.push({ re: new RegExp(`^${source}$`, "su"), negate, dirOnly });
  }
  return rules;
}

/**
 * The `.gitignore` rules in force at one point of a walk. Immutable: a walk
 * adds a directory's rules with {@linkcode IgnoreMatcher.with} and keeps the
 * parent's matcher for its siblings.
 */
export class IgnoreMatcher {
  /** A matcher with no rules: nothing is ignored. */
  static readonly EMPTY: IgnoreMatcher = new IgnoreMatcher([]);
  #levels: readonly Level[];

  private constructor(levels: readonly Level[]) {
    this.#levels = levels;
  }

  /** Whether no rule is in force. */
  get empty(): boolean {
    return this.#levels.length === 0;
  }

  /**
   * A matcher that also applies the rules of a deeper `.gitignore` file.
   *
   * @param base The file's directory, relative to the root ("" for the root).
   * @param rules Its parsed rules.
   * @returns The new matcher (this one when `rules` is empty).
   */
  with(base: string, rules: readonly IgnoreRule[]): IgnoreMatcher {
    if (rules.length === 0) return this;
    return new IgnoreMatcher([...this.#levels, { base, rules }]);
  }

  /**
   * Whether a path is ignored by the rules in force.
   *
   * @param relative The path relative to the root, `/`-separated.
   * @param isDirectory Whether it is a directory.
   * @returns True when the deepest rule that matches it ignores it.
   */
  ignored(relative: string, isDirectory: boolean): boolean {
    for (let i = this.#levels.length - 1; i >= 0; i--) {
      const { base, rules } = this.#levels[i]!;
      let path: string;
      if (base === "") path = relative;
      else if (relative.startsWith(`${base}/`)) path = relative.slice(base.length + 1);
      else continue;
      for (let j = rules.length - 1; j >= 0; j--) {
        const rule = rules[j]!;
        if (rule.dirOnly && !isDirectory) continue;
        if (rule.re.test(path)) return !rule.negate;
      }
    }
    return false;
  }
}

/** Drop trailing spaces that are not escaped with `\`. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") {
    if (end >= 2 && line[end - 2] === "\\") break;
    end--;
  }
  return line.slice(0, end);
}

/** A pattern as a regular expression source, or `undefined` when it cannot match anything. */
function patternSource(pattern: string): string | undefined {
  const anchored = pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  if (pattern === "") return undefined;
  let out = anchored || pattern.startsWith("**") ? "" : "(?:.*/)?";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      let j = i;
      while (pattern[j] === "*") j++;
      const atStart = i === 0 || pattern[i - 1] === "/";
      const atEnd = j === pattern.length || pattern[j] === "/";
      if (atStart && atEnd) {
        if (j === pattern.length) out += ".*"; // `x/**` or `**`: everything below
        else {
          out += "(?:.*/)?"; // `**/`: zero or more directories
          j++;
        }
      } else {
        out += "[^/]*";
      }
      i = j - 1;
    } else if (c === "*") {
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const cls = classSource(pattern, i);
      if (cls === undefined) out += "\\[";
      else {
        out += cls.source;
        i = cls.end;
      }
    } else if (c === "\\") {
      if (i + 1 < pattern.length) out += escapeRegExp(pattern[++i]!);
    } else {
      out += escapeRegExp(c);
    }
  }
  return out;
}

/** A bracket class starting at `start`, or `undefined` when it is not closed. */
function classSource(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === "!" || pattern[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "]" && !first) {
      if (body === "") return undefined;
      return { source: negate ? `[^/${body}]` : `[${body}]`, end: i };
    }
    first = false;
    if (c === "\\" && i + 1 < pattern.length) {
      body += escapeClassChar(pattern[++i]!);
    } else if (c === "-" && body !== "" && pattern[i + 1] !== "]") {
      body += "-";
    } else {
      body += escapeClassChar(c);
    }
  }
  return undefined;
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function escapeClassChar(c: string): string {
  return /[\\\]^[-]/.test(c) ? `\\${c}` : c;
}
