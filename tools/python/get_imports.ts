/**
 * `py_get_imports`: what a Python file imports, where, and under which names.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { loadPython } from "./_symbols.ts";

/** One imported name. */
export interface ImportedName {
  /** The name imported (`path` in `from os import path`; the module for `import a.b`). */
  name: string;
  /** The local alias (`as ...`), or null. */
  alias: string | null;
}

/** One import statement. */
export interface ImportEntry {
  /** 1-based line. */
  line: number;
  /** `import` or `from`. */
  kind: "import" | "from";
  /** The module, with leading dots for relative imports (`..pkg.mod`). */
  module: string;
  /** The names bound. */
  names: ImportedName[];
  /** Where it sits: `module`, `conditional` (under if/try/with), `function`, or `class`. */
  scope: string;
}

/** A file's imports. */
export const pyGetImports = defineTool({
  name: "py_get_imports",
  description:
    "What a Python file imports: the modules it depends on, then each import with its line, names, aliases and scope.",
  input: z.object({ path: z.string().min(1) }),
  output: z.object({
    modules: z.array(z.string()),
    imports: z.array(z.object({
      line: z.number(),
      kind: z.string(),
      module: z.string(),
      names: z.array(z.object({ name: z.string(), alias: z.string().nullable() })),
      scope: z.string(),
    })),
  }),
  annotations: { title: "Python imports", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const file = await loadPython(ctx, path);
    const imports = importsIn(file.tree.rootNode);
    const modules = [
      ...new Set(
        imports.flatMap((i) => i.kind === "import" ? i.names.map((n) => n.name) : [i.module]),
      ),
    ];
    const lines = imports.map((i) => {
      const names = i.names.map((n) => (n.alias ? `${n.name} as ${n.alias}` : n.name)).join(", ");
      const where = i.scope === "module" ? "" : `  [${i.scope}]`;
      return `  ${i.line}: ${
        i.kind === "from" ? `from ${i.module} import ${names}` : `import ${names}`
      }${where}`;
    });
    const text = imports.length === 0
      ? `"${file.resolved.display}" imports nothing`
      : `Modules (${modules.length}): ${modules.join(", ")}\nStatements:\n${lines.join("\n")}`;
    return structured(text, { modules, imports });
  },
});

/**
 * Every import statement under a node, with its scope.
 *
 * @param root The module node.
 * @returns The imports, in source order.
 */
export function importsIn(root: Node): ImportEntry[] {
  const out: ImportEntry[] = [];
  const nodes = root.descendantsOfType([
    "import_statement",
    "import_from_statement",
    "future_import_statement",
  ]);
  for (const node of nodes) {
    if (!node) continue;
    const line = node.startPosition.row + 1;
    const scope = scopeOf(node);
    if (node.type === "import_statement") {
      out.push({ line, kind: "import", module: "", names: namesOf(node, undefined), scope });
      continue;
    }
    const moduleNode = node.type === "future_import_statement"
      ? undefined
      : node.childForFieldName("module_name") ?? undefined;
    const module = node.type === "future_import_statement" ? "__future__" : moduleNode?.text ?? "";
    out.push({ line, kind: "from", module, names: namesOf(node, moduleNode), scope });
  }
  for (const entry of out) if (entry.kind === "import") entry.module = entry.names[0]?.name ?? "";
  return out;
}

function namesOf(node: Node, skip: Node | undefined): ImportedName[] {
  const names: ImportedName[] = [];
  for (const child of node.namedChildren) {
    if (!child || (skip && child.startIndex === skip.startIndex)) continue;
    if (child.type === "aliased_import") {
      names.push({
        name: child.childForFieldName("name")?.text ?? "",
        alias: child.childForFieldName("alias")?.text ?? null,
      });
    } else if (child.type === "dotted_name") names.push({ name: child.text, alias: null });
    else if (child.type === "wildcard_import") names.push({ name: "*", alias: null });
  }
  return names;
}

function scopeOf(node: Node): string {
  let scope = "module";
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === "function_definition") return "function";
    if (p.type === "class_definition") return "class";
    if (p.type !== "module" && p.type !== "block") scope = "conditional";
  }
  return scope;
}
