/**
 * `derive_code_path` (seed 001): a multi-level call graph from one function,
 * across the Python, C/C++ and TypeScript/JavaScript files of the roots.
 * Name-based and heuristic — a call is linked to every definition with the
 * callee's name — and said to be so in the output.
 *
 * @module
 */

import { z } from "zod";
import type { Node, Tree } from "web-tree-sitter";
import { ToolError } from "../../security/errors.ts";
import { decodeText, isBinary } from "../_text.ts";
import { type Grammar, grammarForPath, treeSitter } from "../_treesitter.ts";
import { defineTool, type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { walk } from "../files/_walk.ts";
import { headerGrammar, maskForParsing } from "../cfamily/_parse.ts";
import { errorCount } from "../cfamily/_symbols.ts";

/** The most files scanned for definitions. */
export const MAX_FILES = 5_000;
/** The most edges in one answer. */
export const MAX_EDGES = 300;
/** Files read at once. */
const READ_BATCH = 32;
/** Files larger than this are not scanned. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

interface Definition {
  name: string;
  qualified: string;
  file: string;
  start_line: number;
  end_line: number;
  /** Calls in its body (not in nested definitions): callee name and line. */
  calls: Array<{ callee: string; line: number }>;
}

const DEFINITION_TYPES: Record<string, Set<string>> = {
  python: new Set(["function_definition"]),
  c: new Set(["function_definition"]),
  cpp: new Set(["function_definition"]),
  typescript: new Set([
    "function_declaration",
    "method_definition",
    "generator_function_declaration",
  ]),
  tsx: new Set(["function_declaration", "method_definition", "generator_function_declaration"]),
};
const SCOPE_TYPES = new Set([
  "class_definition",
  "class_declaration",
  "class_specifier",
  "struct_specifier",
  "namespace_definition",
]);
const CALL_TYPES = new Set(["call", "call_expression", "new_expression"]);
const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function"]);

const EDGE = z.object({
  from: z.string(),
  to: z.string(),
  call_site: z.string(),
  defined_at: z.string(),
  depth: z.number(),
  cycle: z.boolean(),
});

/** One call of the path: who calls whom, where, and where the callee is defined. */
export type CallEdge = z.infer<typeof EDGE>;

/** Trace what a function calls, level by level, across the roots. */
export const deriveCodePath = defineTool({
  name: "derive_code_path",
  description:
    "Trace the execution path from one function: what it calls, what those call, and so on to max_depth, across the Python, C/C++ and TypeScript/JavaScript files under `path` (default: the first root). Heuristic and name-based: a call is linked to every definition with that name; every edge has the call's file:line and the callee's definition; cycles are marked. target: `func`, `Class.method`, or `path/to/file.py:func`.",
  input: z.object({
    target: z.string().min(1).describe("`func`, `Class.method`, `Class::method`, or `file:func`"),
    max_depth: z.number().int().min(1).max(8).default(3).describe("How many call levels to follow"),
    path: z.string().min(1).default(".").describe("The directory to scan"),
  }),
  output: z.object({
    target: z.string(),
    heuristic: z.boolean(),
    edges: z.array(EDGE),
    files_scanned: z.number(),
    truncated: z.boolean(),
  }),
  annotations: { title: "Derive code path", readOnlyHint: true },
  async run({ target, max_depth, path }, ctx) {
    const start = await ctx.fs.resolve(path, "directory");
    const { definitions, files } = await index(ctx, start);
    const roots = findTarget(definitions, target);
    const byName = new Map<string, Definition[]>();
    for (const def of definitions) {
      // `App()` / `new App()` reaches `App.__init__` / `App.constructor`.
      const parts = def.qualified.split(".");
      const key = (def.name === "__init__" || def.name === "constructor") && parts.length > 1
        ? parts.at(-2)!
        : def.name;
      byName.set(key, [...(byName.get(key) ?? []), def]);
    }
    const edges: CallEdge[] = [];
    const lines: string[] = [];
    let truncated = false;
    const expanded = new Set<Definition>();
    const visit = (def: Definition, depth: number, stack: Definition[], indent: string) => {
      expanded.add(def);
      const seen = new Set<string>();
      const external: string[] = [];
      for (const call of def.calls) {
        if (seen.has(call.callee)) continue;
        seen.add(call.callee);
        const targets = byName.get(call.callee) ?? [];
        if (targets.length === 0) {
          external.push(call.callee);
          continue;
        }
        const sameFile = targets.filter((each) => each.file === def.file);
        for (const callee of (sameFile.length ? sameFile : targets).slice(0, 5)) {
          if (edges.length >= MAX_EDGES) {
            truncated = true;
            return;
          }
          const cycle = stack.includes(callee);
          const site = `${def.file}:${call.line}`;
          const at = `${callee.file}:${callee.start_line}-${callee.end_line}`;
          edges.push({
            from: def.qualified,
            to: callee.qualified,
            call_site: site,
            defined_at: at,
            depth,
            cycle,
          });
          const note = cycle
            ? " (cycle: not followed)"
            : expanded.has(callee)
            ? " (followed above)"
            : "";
          lines.push(
            `${indent}→ ${callee.qualified}  called at ${site}, defined at ${at}${
              targets.length > 1 ? ` [${targets.length} definitions named ${call.callee}]` : ""
            }${note}`,
          );
          if (!cycle && !expanded.has(callee) && depth < max_depth) {
            visit(callee, depth + 1, [...stack, callee], `${indent}  `);
          }
        }
      }
      if (external.length) {
        lines.push(
          `${indent}· not defined under the scanned path: ${external.slice(0, 12).join(", ")}${
            external.length > 12 ? ", …" : ""
          }`,
        );
      }
    };
    for (const root of roots) {
      lines.push(`${root.qualified}  defined at ${root.file}:${root.start_line}-${root.end_line}`);
      visit(root, 1, [root], "  ");
    }
    const header =
      `Call path from ${target} (heuristic: calls are matched to definitions by name; depth ${max_depth}; ${files} files scanned)`;
    const footer = truncated ? [`[cut at ${MAX_EDGES} edges: lower max_depth or narrow path]`] : [];
    return {
      content: [{ type: "text", text: [header, ...lines, ...footer].join("\n") }],
      structuredContent: { target, heuristic: true, edges, files_scanned: files, truncated },
    };
  },
});

function findTarget(definitions: Definition[], target: string): Definition[] {
  const colon = target.lastIndexOf(":");
  const inFile = colon > 0 && target[colon - 1] !== ":" ? target.slice(0, colon) : undefined;
  const name = (inFile ? target.slice(colon + 1) : target).replaceAll("::", ".");
  const pool = inFile
    ? definitions.filter((def) => def.file === inFile || def.file.endsWith(`/${inFile}`))
    : definitions;
  let found = pool.filter((def) => def.qualified === name);
  if (found.length === 0) {
    found = pool.filter((def) => def.qualified.endsWith(`.${name}`) || def.name === name);
  }
  if (found.length === 0) {
    throw new ToolError(
      "not_found",
      `No function "${target}" was found${inFile ? ` in "${inFile}"` : ""} under the scanned path`,
    );
  }
  if (found.length > 1) {
    const list = found.slice(0, 20).map((def) =>
      `${def.file}:${def.qualified} (line ${def.start_line})`
    ).join(", ");
    throw new ToolError(
      "ambiguous_match",
      `"${target}" names ${found.length} functions: ${list}; use file:func`,
    );
  }
  return found;
}

async function index(
  ctx: ToolContext,
  start: Awaited<ReturnType<ToolContext["fs"]["resolve"]>>,
): Promise<{ definitions: Definition[]; files: number }> {
  const definitions: Definition[] = [];
  let files = 0;
  const byDir = new Map<string, Array<{ name: string; display: string; grammar: Grammar }>>();
  for await (const entry of walk(ctx, start, { filesOnly: true })) {
    const grammar = grammarForPath(entry.name);
    if (!grammar) continue;
    if (++files > MAX_FILES) break;
    const dir = entry.path.slice(0, entry.path.lastIndexOf("/")) || "/";
    byDir.set(dir, [...(byDir.get(dir) ?? []), {
      name: entry.name,
      display: entry.display,
      grammar,
    }]);
  }
  const total = Math.min(files, MAX_FILES);
  let done = 0;
  let lastYield = performance.now();
  for (const [dir, all] of byDir) {
    // A few files at a time: at most READ_BATCH × MAX_FILE_BYTES held at once.
    for (let at = 0; at < all.length; at += READ_BATCH) {
      const entries = all.slice(at, at + READ_BATCH);
      const contents = ctx.fs.readMany(dir, entries.map((each) => each.name), MAX_FILE_BYTES);
      for (const [i, entry] of entries.entries()) {
        if (yieldDue(ctx, lastYield)) {
          await yieldToWorker(ctx.signal);
          lastYield = performance.now();
        }
        if (++done % 100 === 0) ctx.progress(done, total, `indexed ${done} of ${total} files`);
        const bytes = contents[i];
        if (!(bytes instanceof Uint8Array) || isBinary(bytes)) continue;
        let text: string;
        try {
          text = decodeText(bytes, entry.display).text;
        } catch {
          continue;
        }
        const grammar = headerGrammar(entry.grammar, entry.name, text);
        const tree = await parseForIndex(ctx, text, grammar);
        try {
          collect(tree.rootNode, grammar, entry.display, [], definitions);
        } finally {
          tree.delete();
        }
      }
    }
  }
  return { definitions, files: Math.min(files, MAX_FILES) };
}

/** Parse one file; C/C++ files that do not parse as written are parsed with conditionals blanked. */
async function parseForIndex(ctx: ToolContext, text: string, grammar: Grammar): Promise<Tree> {
  const tree = await treeSitter(ctx).parseText(text, grammar);
  if ((grammar !== "c" && grammar !== "cpp") || !tree.rootNode.hasError) return tree;
  const masked = maskForParsing(text);
  if (masked === undefined) return tree;
  const other = await treeSitter(ctx).parseText(masked, grammar);
  const [keep, drop] = errorCount(other) < errorCount(tree) ? [other, tree] : [tree, other];
  drop.delete();
  return keep;
}

function collect(
  node: Node,
  grammar: Grammar,
  file: string,
  scope: string[],
  out: Definition[],
): void {
  for (const child of node.namedChildren) if (child) collectOne(child, grammar, file, scope, out);
}

/** A definition (with its calls), a scope (class, namespace) to descend, or anything else to look inside. */
function collectOne(
  child: Node,
  grammar: Grammar,
  file: string,
  scope: string[],
  out: Definition[],
): void {
  const arrow = functionValue(child, grammar);
  if (arrow) {
    addDefinition(child, arrow.name, arrow.body, grammar, file, scope, out);
    return;
  }
  if (DEFINITION_TYPES[grammar]!.has(child.type)) {
    const name = definitionName(child, grammar);
    if (name) {
      addDefinition(child, name, child.childForFieldName("body"), grammar, file, scope, out);
      return;
    }
  }
  if (SCOPE_TYPES.has(child.type)) {
    const name = child.childForFieldName("name")?.text;
    collect(child, grammar, file, name ? [...scope, name] : scope, out);
  } else {
    collect(child, grammar, file, scope, out);
  }
}

function addDefinition(
  node: Node,
  name: string,
  body: Node | null,
  grammar: Grammar,
  file: string,
  scope: string[],
  out: Definition[],
): void {
  const parts = name.split(/::|\./);
  const def: Definition = {
    name: parts.at(-1)!,
    qualified: [...scope, ...parts].join("."),
    file,
    start_line: node.startPosition.row + 1,
    end_line: node.endPosition.row + 1,
    calls: [],
  };
  out.push(def);
  if (body) calls(body, grammar, def, file, [...scope, ...parts], out);
}

/** `const f = () => …`, `let g = function () {…}`, a class field `h = () => …` (TS/JS). */
function functionValue(
  node: Node,
  grammar: Grammar,
): { name: string; body: Node | null } | undefined {
  if (grammar !== "typescript" && grammar !== "tsx") return undefined;
  let name: Node | null = null;
  let value: Node | null = null;
  if (node.type === "variable_declarator") {
    name = node.childForFieldName("name");
    value = node.childForFieldName("value");
  } else if (node.type === "public_field_definition" || node.type === "field_definition") {
    name = node.childForFieldName("name") ?? node.childForFieldName("property");
    value = node.childForFieldName("value");
  }
  if (!name || !value || !FUNCTION_VALUES.has(value.type)) return undefined;
  if (name.type !== "identifier" && name.type !== "property_identifier") return undefined;
  return { name: name.text, body: value.childForFieldName("body") };
}

/** Calls in a body; nested definitions get their own entries. */
function calls(
  node: Node,
  grammar: Grammar,
  def: Definition,
  file: string,
  scope: string[],
  out: Definition[],
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (
      DEFINITION_TYPES[grammar]!.has(child.type) || SCOPE_TYPES.has(child.type) ||
      functionValue(child, grammar)
    ) {
      collectOne(child, grammar, file, scope, out);
      continue;
    }
    if (CALL_TYPES.has(child.type)) {
      const callee = calleeName(
        child.childForFieldName("function") ?? child.childForFieldName("constructor"),
      );
      if (callee) def.calls.push({ callee, line: child.startPosition.row + 1 });
    }
    calls(child, grammar, def, file, scope, out);
  }
}

function definitionName(node: Node, grammar: Grammar): string | undefined {
  if (grammar === "c" || grammar === "cpp") {
    let declarator = node.childForFieldName("declarator");
    for (let i = 0; declarator && i < 8; i++) {
      if (
        [
          "identifier",
          "field_identifier",
          "qualified_identifier",
          "destructor_name",
          "operator_name",
        ].includes(declarator.type)
      ) {
        return declarator.text;
      }
      declarator = declarator.childForFieldName("declarator");
    }
    return undefined;
  }
  return node.childForFieldName("name")?.text;
}

function calleeName(node: Node | null): string | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case "identifier":
    case "field_identifier":
    case "property_identifier":
      return node.text;
    case "attribute":
      return node.childForFieldName("attribute")?.text;
    case "member_expression":
      return node.childForFieldName("property")?.text;
    case "field_expression":
      return node.childForFieldName("field")?.text;
    case "qualified_identifier":
      return node.childForFieldName("name")?.text;
    case "template_function":
      return node.childForFieldName("name")?.text;
    default:
      return undefined;
  }
}
