/**
 * Parsing C and C++ the way a reader without a preprocessor can: as written
 * first, and when that leaves parse errors, again with the conditional
 * directives blanked (a group whose branches would unbalance the braces
 * keeps only its first branch, as Universal Ctags does) and the macros
 * declarations are wrapped in blanked (`_macros.ts`). An
 * unbalanced `#ifdef X` + `namespace X {` otherwise turns a whole file into
 * one ERROR node. Blanking keeps every offset, so ranges map to the file.
 *
 * @module
 */

import type { Tree } from "web-tree-sitter";
import type { ResolvedPath } from "../../security/resolver.ts";
import { treeSitter } from "../_treesitter.ts";
import type { ToolContext } from "../tool.ts";
import { errorCount, parseWarnings } from "../_diagnostics.ts";
import { maskDeclarationMacros } from "./_macros.ts";

/** The most masked trees kept per worker. */
const MASKED_CACHE_ENTRIES = 8;
/** The most source (characters) behind the masked trees kept per worker. */
const MASKED_CACHE_CHARS = 4 * 1024 * 1024;

const DIRECTIVE = /^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b(.*)$/;

/** A parse of a C or C++ file. */
export interface CParse {
  /** The tree (owned by a cache: use it before the next await). */
  tree: Tree;
  /** True when conditionals were blanked to parse it. */
  masked: boolean;
}

interface MaskedEntry {
  text: string;
  tree: Tree | undefined;
}

/**
 * Blank what a parser without a preprocessor trips on: conditional directive
 * lines, `#if 0` branches and the later branches of unbalanced groups, export
 * macros in `class MACRO Name`, and ALL_CAPS macros between a parameter
 * list and its body (`void f() NCURSES_OVERRIDE {`, `int g() const THROW(E);`),
 * lines that are only a macro (`_GLIBCXX_BEGIN_NAMESPACE_VERSION`), and the macros a
 * declaration is wrapped in (`ZEXTERN int ZEXPORT deflate OF((…))`, `BZ_API(name)`,
 * `__THROW __nonnull ((1))`: see `_macros.ts`). Line breaks and length are kept, so
 * offsets and lines stay those of the file.
 *
 * @param text The source.
 * @returns The same-length text, or undefined when nothing was blanked.
 */
export function maskForParsing(text: string): string | undefined {
  const blank = (part: string) => part.replace(/[^\s]/g, " ");
  let masked = maskConditionals(text);
  masked = masked.replace(
    /\b((?:class|struct|union)\s+)([A-Z_][A-Z0-9_]{2,})(\s+[A-Za-z_]\w*\s*(?:[:{]|final\b))/g,
    (_all, head: string, macro: string, tail: string) => head + blank(macro) + tail,
  ).replace(
    // A line that is only a macro (`_GLIBCXX_BEGIN_NAMESPACE_VERSION`, `G_BEGIN_DECLS`).
    /^([ \t]*)([A-Z_][A-Z0-9_]{3,}(?:\([^()\n]*\))?)([ \t]*)$/gm,
    (_all, head: string, macro: string, tail: string) => head + blank(macro) + tail,
  ).replace(
    /(\)\s*(?:const\s*)?(?:noexcept\s*)?)([A-Z_][A-Z0-9_]{2,}(?:\s*\([^()]*\))?)(?=\s*[{;])/g,
    (_all, head: string, macro: string) => head + blank(macro),
  );
  masked = maskDeclarationMacros(masked);
  return masked === text ? undefined : masked;
}

/**
 * The grammar for a C-family file by its name and text: a `.h` header that
 * declares classes, namespaces or templates is C++.
 *
 * @param grammar The grammar by extension.
 * @param path The file's name or path.
 * @param text Its text.
 * @returns `cpp` for a C++ header, else `grammar`.
 */
export function headerGrammar<G extends string>(grammar: G, path: string, text: string): G | "cpp" {
  return grammar === "c" && /\.h$/i.test(path) &&
      /^[ \t]*(?:class|namespace)[ \t]+\w+[^;\n]*$|^[ \t]*template[ \t]*</m.test(text)
    ? "cpp"
    : grammar;
}

/** One `#if` … `#endif` group: where each branch's directive is, and the `#endif`. */
interface Group {
  marks: Array<{ line: number; zero: boolean }>;
  end: number;
}

/**
 * Blank conditional directives; keep every branch of a group when each is
 * balanced in braces and parentheses (both are parsed, as ctags does), else
 * only the first (a later branch that re-opens a `{` would unbalance the
 * file). `#if 0` branches are always blanked.
 */
function maskConditionals(text: string): string {
  if (!/^[ \t]*#[ \t]*if/m.test(text)) return text;
  const parts = text.split(/(\r\n|\r|\n)/);
  const lines = parts.filter((_, i) => i % 2 === 0);
  const blanked = new Array<boolean>(lines.length).fill(false);
  for (const group of directiveGroups(lines, blanked)) {
    if (group.end >= 0) blankBranches(group, lines, blanked);
  }
  blanked.forEach((blank, n) => {
    if (blank) parts[2 * n] = parts[2 * n]!.replace(/[^\s]/g, " ");
  });
  return parts.join("");
}

/** The conditional groups of a file, in order; marks every directive line (and its continuations) blanked. */
function directiveGroups(lines: readonly string[], blanked: boolean[]): Group[] {
  const groups: Group[] = [];
  const stack: Group[] = [];
  let continued = false;
  lines.forEach((line, n) => {
    if (continued) {
      blanked[n] = true;
      continued = line.endsWith("\\");
      return;
    }
    const match = DIRECTIVE.exec(line);
    if (!match) return;
    blanked[n] = true;
    continued = line.endsWith("\\");
    const zero = match[1] !== "else" && /^\s*0\s*(\/[/*].*)?$/.test(match[2]!);
    if (match[1]!.startsWith("if")) {
      const group: Group = { marks: [{ line: n, zero }], end: -1 };
      stack.push(group);
      groups.push(group);
    } else if (match[1] === "endif") {
      const group = stack.pop();
      if (group) group.end = n;
    } else {
      stack.at(-1)?.marks.push({ line: n, zero });
    }
  });
  return groups;
}

/** Blank a closed group's branches: `#if 0` ones, and all but the first unless each is balanced. */
function blankBranches(group: Group, lines: readonly string[], blanked: boolean[]): void {
  const branches = group.marks.map((mark, i) => ({
    from: mark.line + 1,
    to: group.marks[i + 1]?.line ?? group.end,
    zero: mark.zero,
  }));
  const balanced = branches.every((b) => isBalanced(lines.slice(b.from, b.to).join("\n")));
  let kept = false;
  for (const branch of branches) {
    const keep: boolean = !branch.zero && (balanced || !kept);
    kept ||= keep;
    if (!keep) blanked.fill(true, branch.from, branch.to);
  }
}

/** Whether code opens as many braces and parentheses as it closes (comments and literals aside). */
function isBalanced(code: string): boolean {
  const bare = code.replace(
    /\/\*[^]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g,
    "",
  );
  let braces = 0;
  let parens = 0;
  for (const char of bare) {
    if (char === "{") braces++;
    else if (char === "}") braces--;
    else if (char === "(") parens++;
    else if (char === ")") parens--;
  }
  return braces === 0 && parens === 0;
}

/**
 * Parse a C or C++ file, with conditionals blanked when that parses better.
 *
 * @param ctx The tool context.
 * @param resolved The file.
 * @param text Its text.
 * @param grammar `c` or `cpp`.
 * @returns The better tree.
 */
export async function parseC(
  ctx: ToolContext,
  resolved: ResolvedPath,
  text: string,
  grammar: "c" | "cpp",
): Promise<CParse> {
  const service = treeSitter(ctx);
  const plain = await service.parseFile(resolved, text, grammar);
  if (!plain.tree.rootNode.hasError) return { tree: plain.tree, masked: false };
  const cache = ctx.shared(
    "cfamily-masked-trees",
    () => new Map<string, MaskedEntry>(),
  );
  const key = `${resolved.path}\0${grammar}`;
  let entry = cache.get(key);
  if (!entry || entry.text !== text) {
    entry?.tree?.delete();
    cache.delete(key);
    const masked = maskForParsing(text);
    const tree = masked === undefined ? undefined : await service.parseText(masked, grammar);
    entry = { text, tree };
    cache.set(key, entry);
    const chars = () => [...cache.values()].reduce((sum, each) => sum + each.text.length, 0);
    while (cache.size > MASKED_CACHE_ENTRIES || (cache.size > 1 && chars() > MASKED_CACHE_CHARS)) {
      const [oldest, old] = cache.entries().next().value!;
      old.tree?.delete();
      cache.delete(oldest);
    }
  }
  cache.delete(key);
  cache.set(key, entry); // most recently used last
  // The plain tree may have been evicted by the awaits above: take it again (a cache hit).
  const again = await service.parseFile(resolved, text, grammar);
  // Another call may have evicted (and deleted) the masked tree meanwhile.
  if (cache.get(key) === entry && entry.tree && errorCount(entry.tree) < errorCount(again.tree)) {
    return { tree: entry.tree, masked: true };
  }
  return { tree: again.tree, masked: false };
}

/**
 * The fewest parse errors of `text` as written or with conditionals blanked
 * (uncached; for checking an edit's result).
 *
 * @param ctx The tool context.
 * @param text The text.
 * @param grammar `c` or `cpp`.
 * @returns The error count and up to three warnings.
 */
export async function bestErrors(
  ctx: ToolContext,
  text: string,
  grammar: "c" | "cpp",
): Promise<{ count: number; where: string[] }> {
  let best = { count: Infinity, where: [] as string[] };
  for (const source of [text, maskForParsing(text)]) {
    if (source === undefined) continue;
    const tree = await treeSitter(ctx).parseText(source, grammar);
    try {
      const count = errorCount(tree);
      if (count < best.count) best = { count, where: parseWarnings(tree, 3) };
    } finally {
      tree.delete();
    }
    if (best.count === 0) break;
  }
  return best;
}
