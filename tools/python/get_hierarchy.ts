/**
 * `py_get_hierarchy`: the subclasses of a class across a directory,
 * following dotted (`mod.Base`) and aliased (`import m as y`,
 * `from m import Base as B`) bases, transitively.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import { z } from "zod";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import { treeSitter } from "../_treesitter.ts";
import { defineTool, structured, type ToolContext } from "../tool.ts";
import { pythonSources } from "./_scan.ts";
import { lastRow, parseName } from "./_symbols.ts";
import { location } from "../_symbols.ts";

/** A class found while scanning. */
interface FoundClass {
  name: string;
  qualified: string;
  path: string;
  startLine: number;
  endLine: number;
  /** The bases as written. */
  bases: string[];
  /** The bases' class names, aliases resolved (`B` → `Base`, `mod.Base` → `Base`). */
  resolved: string[];
}

/** One subclass in the result. */
export interface Subclass {
  /** Its dotted name in its file. */
  name: string;
  /** Its file. */
  path: string;
  /** First line, 1-based (its first decorator's). */
  start_line: number;
  /** Last line, 1-based. */
  end_line: number;
  /** Its bases as written. */
  bases: string[];
  /** 1 for direct subclasses. */
  depth: number;
  /** The class it derives from in this tree. */
  parent: string;
}

/** Find subclasses. */
export const pyGetHierarchy = defineTool({
  name: "py_get_hierarchy",
  description:
    "The subclasses of a Python class, direct and indirect, across the .py/.pyi files under a directory, with their lines and bases.",
  input: z.object({
    path: z.string().min(1).default("."),
    name: z.string().min(1).describe('"Base" or "pkg.mod.Base"'),
    limit: z.number().int().min(1).max(5000).default(500),
  }),
  output: z.object({
    name: z.string(),
    subclasses: z.array(z.object({
      name: z.string(),
      path: z.string(),
      start_line: z.number(),
      end_line: z.number(),
      bases: z.array(z.string()),
      depth: z.number(),
      parent: z.string(),
    })),
    files_scanned: z.number(),
    truncated: z.boolean(),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Python class hierarchy", readOnlyHint: true, idempotentHint: true },
  async run({ path, name, limit }, ctx) {
    const target = parseName(name).path.split(".").pop()!;
    const skipped = new Skipped();
    const { byBase, files } = await classesByBase(ctx, path, skipped);
    const subclasses = subclassesOf(byBase, target, limit);
    const truncated = subclasses.length > limit;
    const shown = subclasses.slice(0, limit);
    const lines = shown.map((s) =>
      `${"  ".repeat(s.depth)}${s.name} (${location(s.path, s.start_line, s.end_line)}) bases: ${
        s.bases.join(", ")
      }`
    );
    let text = shown.length === 0
      ? `No subclasses of "${target}" in ${files} Python file${files === 1 ? "" : "s"}`
      : `${target}\n${lines.join("\n")}`;
    if (truncated) text += `\n[more subclasses exist: raise limit or scan a narrower path]`;
    return structured(skipped.appendTo(text), {
      name: target,
      subclasses: shown,
      files_scanned: files,
      truncated,
      skipped: skipped.summary(),
    });
  },
});

/** Every class under a path, by each base it names; and how many files were scanned. */
async function classesByBase(
  ctx: ToolContext,
  path: string,
  skipped: Skipped,
): Promise<{ byBase: Map<string, FoundClass[]>; files: number }> {
  const ts = treeSitter(ctx);
  const byBase = new Map<string, FoundClass[]>();
  let files = 0;
  for await (const source of pythonSources(ctx, path, skipped)) {
    files++;
    if (!source.text.includes("class")) continue;
    let classes: FoundClass[];
    try {
      const tree = await ts.parseText(source.text, "python");
      try {
        classes = classesIn(tree, source.display);
      } finally {
        tree.delete();
      }
    } catch (error) {
      files--;
      skipped.failed(source.display, error, ctx.logger);
      continue;
    }
    for (const found of classes) {
      for (const base of new Set(found.resolved)) {
        if (!byBase.has(base)) byBase.set(base, []);
        byBase.get(base)!.push(found);
      }
    }
  }
  return { byBase, files };
}

/** The subclasses of `target`, depth first, each once; one more than `maxResults` says there are more. */
function subclassesOf(
  byBase: Map<string, FoundClass[]>,
  target: string,
  maxResults: number,
): Subclass[] {
  const subclasses: Subclass[] = [];
  const seen = new Set<string>();
  const visit = (base: string, depth: number) => {
    for (const found of byBase.get(base) ?? []) {
      const key = `${found.path}:${found.startLine}`;
      if (seen.has(key) || subclasses.length > maxResults) continue;
      seen.add(key);
      const { path, bases } = found;
      subclasses.push({
        name: found.qualified,
        path,
        start_line: found.startLine,
        end_line: found.endLine,
        bases,
        depth,
        parent: base,
      });
      if (depth < 50) visit(found.name, depth + 1);
    }
  };
  visit(target, 1);
  return subclasses;
}

function classesIn(tree: Tree, display: string): FoundClass[] {
  const aliases = aliasMap(tree.rootNode);
  const out: FoundClass[] = [];
  for (const node of tree.rootNode.descendantsOfType("class_definition")) {
    if (!node) continue;
    const args = node.childForFieldName("superclasses");
    if (!args) continue;
    const bases: string[] = [];
    const resolved: string[] = [];
    for (const arg of args.namedChildren) {
      if (!arg || arg.type === "keyword_argument" || arg.type === "comment") continue;
      const expr = arg.type === "subscript" ? arg.childForFieldName("value") ?? arg : arg;
      if (expr.type !== "identifier" && expr.type !== "attribute") continue;
      bases.push(arg.text.replace(/\s+/g, ""));
      const text = expr.text.replace(/\s+/g, "");
      const last = text.split(".").pop()!;
      resolved.push(expr.type === "identifier" ? aliases.get(text) ?? text : last);
    }
    if (bases.length === 0) continue;
    out.push({
      name: node.childForFieldName("name")?.text ?? "?",
      qualified: qualifiedName(node),
      path: display,
      startLine: (node.parent?.type === "decorated_definition" ? node.parent : node).startPosition
        .row + 1,
      endLine: lastRow(node) + 1,
      bases,
      resolved,
    });
  }
  return out;
}

/** Local names bound by `from m import X as Y` (Y → X). */
function aliasMap(root: Node): Map<string, string> {
  const map = new Map<string, string>();
  for (const node of root.descendantsOfType("aliased_import")) {
    if (!node || node.parent?.type !== "import_from_statement") continue;
    const name = node.childForFieldName("name")?.text.split(".").pop();
    const alias = node.childForFieldName("alias")?.text;
    if (name && alias) map.set(alias, name);
  }
  return map;
}

function qualifiedName(node: Node): string {
  const parts: string[] = [];
  for (let n: Node | null = node; n; n = n.parent) {
    if (n.type === "class_definition" || n.type === "function_definition") {
      parts.unshift(n.childForFieldName("name")?.text ?? "?");
    }
  }
  return parts.join(".");
}
