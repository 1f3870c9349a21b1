/**
 * Glob patterns compiled to regular expressions, in the dialect most tools
 * share: `*` and `?` stay inside one path segment, `**` crosses segments,
 * `[abc]`/`[!abc]` are classes and `{a,b}` are alternatives.
 *
 * @module
 */

const SPECIAL = new Set([..."\\^$.|+()[]{}*?/"]);

/**
 * Compile a glob into an anchored regular expression over `/`-separated paths.
 *
 * @param glob The pattern, e.g. `src/**\/*.ts` or `*_history.toml`.
 * @returns A regular expression that matches the whole path.
 * @throws {SyntaxError} When the pattern has an unclosed class or brace.
 * @example
 * ```ts
 * globToRegExp("**\/*.py").test("a/b/c.py"); // true
 * ```
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob)}$`, "u");
}

/**
 * Whether a glob has any special character, i.e. is not a plain name.
 *
 * @param glob The pattern.
 * @returns True when the pattern uses `*`, `?`, `[` or `{`.
 */
export function isGlob(glob: string): boolean {
  return /[*?[{]/.test(glob);
}

/**
 * A test of whether what is later put in a directory could match a glob that
 * matches at any depth: whether a leading part of the glob (all but at least
 * its last segment) matches the directory's last segments. Moving a directory
 * whose path passes this test makes what it holds, or will hold, a match
 * (`.hg` for `.hg/hgrc`, `x/.config` for `.config/git/**`).
 *
 * A glob whose braces hold a `/` is not split into segments: its test is
 * always false, and only the names that exist can be judged.
 *
 * @param glob The pattern, matched at any depth.
 * @param ignoreCase Compare names without regard to case.
 * @returns A test over a `/`-separated directory path relative to its root.
 * @throws {SyntaxError} When the pattern does not compile.
 * @example
 * ```ts
 * leadingPartMatcher(".hg/hgrc")("src/.hg"); // true
 * ```
 */
export function leadingPartMatcher(glob: string, ignoreCase = false): (dir: string) => boolean {
  const trimmed = glob.replace(/^\/+|\/+$/g, "");
  if (/\{[^}]*\//.test(trimmed)) return () => false;
  const parts = trimmed.split("/");
  // Matching at any depth already lets a match start anywhere.
  while (parts[0] === "**") parts.shift();
  const flags = ignoreCase ? "iu" : "u";
  const segments = parts.map((part) =>
    part === "**" ? undefined : new RegExp(`^${globSource(part)}$`, flags)
  );
  return (dir) => {
    const names = dir === "" ? [] : dir.split("/");
    for (let take = 1; take < segments.length; take++) {
      const lead = segments.slice(0, take);
      for (let start = 0; start < names.length; start++) {
        if (segmentsMatch(lead, names, 0, start)) return true;
      }
    }
    return false;
  };
}

/** Whether glob segments (`undefined` is `**`) match all of `names` from `j` on. */
function segmentsMatch(
  segments: ReadonlyArray<RegExp | undefined>,
  names: readonly string[],
  i: number,
  j: number,
): boolean {
  if (i === segments.length) return j === names.length;
  const segment = segments[i];
  if (segment === undefined) {
    for (let k = j; k <= names.length; k++) {
      if (segmentsMatch(segments, names, i + 1, k)) return true;
    }
    return false;
  }
  return j < names.length && segment.test(names[j]!) &&
    segmentsMatch(segments, names, i + 1, j + 1);
}

function globSource(glob: string): string {
  let out = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const atEnd = i + 2 === glob.length || glob[i + 2] === "/";
        if (atStart && atEnd) {
          // `**/` matches zero or more whole segments; a trailing `**` matches anything.
          out += i + 2 === glob.length ? ".*" : "(?:[^/]*/)*";
          i += i + 2 === glob.length ? 1 : 2;
          continue;
        }
        out += "[^/]*";
        i++;
        continue;
      }
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) throw new SyntaxError(`Cannot compile glob "${glob}": unclosed "["`);
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      out += `[${negate ? "^/" : ""}${body.replaceAll("\\", "\\\\").replaceAll("]", "\\]")}]`;
      i = end;
    } else if (c === "{") {
      braceDepth++;
      out += "(?:";
    } else if (c === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
    } else if (c === "," && braceDepth > 0) {
      out += "|";
    } else if (c === "\\" && i + 1 < glob.length) {
      out += escapeChar(glob[++i]!);
    } else {
      out += escapeChar(c);
    }
  }
  if (braceDepth > 0) throw new SyntaxError(`Cannot compile glob "${glob}": unclosed "{"`);
  return out;
}

function escapeChar(c: string): string {
  return SPECIAL.has(c) ? `\\${c}` : c;
}
