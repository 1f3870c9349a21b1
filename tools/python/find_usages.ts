/**
 * `py_find_usages`: where a Python name is used, as an identifier (never in
 * strings or comments), in one file or every Python file under a directory.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { z } from "zod";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import { treeSitter } from "../_treesitter.ts";
import { defineTool, structured } from "../tool.ts";
import { pythonSources } from "./_scan.ts";
import { parseName } from "./_symbols.ts";

/** One use of a name. */
export interface Usage {
  /** The file. */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** definition, import, call, assignment, keyword, attribute or reference. */
  role: string;
  /** The line's text, trimmed. */
  text: string;
}

/** Find a name's uses. */
export const pyFindUsages = defineTool({
  name: "py_find_usages",
  description:
    'Find where a Python name is used as an identifier — definitions, imports, calls, assignments, attribute accesses, keyword arguments — in one file or in every .py/.pyi file under a directory (.gitignore\'d files, .git and node_modules skipped). Unlike grep it never matches inside strings, comments or longer names. For a dotted name ("Class.method") its last part is searched. Results are `path:line:column [role] code`, a page at a time; files that cannot be read or parsed are skipped and counted.',
  input: z.object({
    path: z.string().min(1).default(".").describe("A Python file, or a directory to search"),
    name: z.string().min(1).describe(
      'The name ("parse_args"; "Parser.parse_args" searches "parse_args")',
    ),
    max_results: z.number().int().min(1).max(2000).default(200).describe("The most uses to return"),
    offset: z.number().int().min(0).default(0).describe("Skip this many uses (for paging)"),
  }),
  output: z.object({
    usages: z.array(z.object({
      path: z.string(),
      line: z.number(),
      column: z.number(),
      role: z.string(),
      text: z.string(),
    })),
    files_searched: z.number(),
    truncated: z.boolean(),
    next_offset: z.number().optional(),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Find Python usages", readOnlyHint: true, idempotentHint: true },
  async run({ path, name, max_results, offset }, ctx) {
    const target = parseName(name).path.split(".").pop()!;
    const ts = treeSitter(ctx);
    const want = offset + max_results + 1;
    const found: Usage[] = [];
    let files = 0;
    const skipped = new Skipped();
    for await (const source of pythonSources(ctx, path, skipped)) {
      files++;
      if (!source.text.includes(target)) continue;
      try {
        const tree = await ts.parseText(source.text, "python");
        try {
          for (const use of usagesIn(tree, source.text, target, source.display)) found.push(use);
        } finally {
          tree.delete();
        }
      } catch (error) {
        files--;
        skipped.failed(source.display, error, ctx.logger);
      }
      if (found.length >= want) break;
    }
    const page = found.slice(offset, offset + max_results);
    const truncated = found.length > offset + max_results;
    const lines = page.map((u) => `${u.path}:${u.line}:${u.column} [${u.role}] ${u.text}`);
    let text = page.length === 0
      ? `No uses of "${target}" in ${files} Python file${files === 1 ? "" : "s"}`
      : lines.join("\n");
    if (truncated) {
      text += `\n[more uses exist: call again with offset: ${offset + max_results}]`;
    }
    const data: Record<string, unknown> = { usages: page, files_searched: files, truncated };
    if (truncated) data.next_offset = offset + max_results;
    data.skipped = skipped.summary();
    return structured(skipped.appendTo(text), data);
  },
});

/**
 * The uses of an identifier in one parsed file.
 *
 * @param tree The tree.
 * @param text Its source.
 * @param name The identifier.
 * @param display The file's path, for the results.
 * @returns The uses, in source order.
 */
export function usagesIn(tree: Tree, text: string, name: string, display: string): Usage[] {
  const out: Usage[] = [];
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "gu");
  const lines = text.split(/\r\n|\r|\n/);
  for (const match of text.matchAll(word)) {
    const at = match.index;
    const node = tree.rootNode.descendantForIndex(at, at + name.length);
    if (!node || node.type !== "identifier" || node.startIndex !== at) continue;
    const row = node.startPosition.row;
    out.push({
      path: display,
      line: row + 1,
      column: node.startPosition.column + 1,
      role: roleOf(node),
      text: (lines[row] ?? "").trim().slice(0, 300),
    });
  }
  return out;
}

function roleOf(node: Node): string {
  const parent = node.parent;
  if (!parent) return "reference";
  const is = (field: string) => parent.childForFieldName(field)?.startIndex === node.startIndex;
  switch (parent.type) {
    case "function_definition":
    case "class_definition":
      return is("name") ? "definition" : "reference";
    case "dotted_name":
    case "aliased_import":
      return hasAncestor(node, /import/) ? "import" : "reference";
    case "call":
      return "call";
    case "keyword_argument":
      return is("name") ? "keyword" : "reference";
    case "assignment":
    case "augmented_assignment":
      return is("left") ? "assignment" : "reference";
    case "attribute":
      if (!is("attribute")) return "reference";
      return parent.parent?.type === "call" ? "call" : "attribute";
    default:
      return "reference";
  }
}

function hasAncestor(node: Node, type: RegExp): boolean {
  for (let p = node.parent; p; p = p.parent) if (type.test(p.type)) return true;
  return false;
}
