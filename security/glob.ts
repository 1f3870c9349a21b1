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
