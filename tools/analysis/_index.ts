/**
 * The definitions of every Python, C/C++ and TypeScript/JavaScript file under
 * a directory, each with the calls in its body, for `derive_code_path`. A
 * file that cannot be read or parsed is counted as skipped; the syntax trees
 * are walked with an explicit stack, so no nesting depth can exhaust the call
 * stack.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { ResolvedPath } from "../../security/resolver.ts";
import type { Skipped } from "../_skipped.ts";
import { readTexts } from "../_text.ts";
import { type Grammar, grammarForPath, treeSitter } from "../_treesitter.ts";
import { type ToolContext, yieldDue, yieldToWorker } from "../tool.ts";
import { walk } from "../_walk.ts";
import { headerGrammar, maskForParsing } from "../cfamily/_parse.ts";
import { errorCount } from "../_diagnostics.ts";

/** The most files scanned for definitions. */
export const MAX_FILES = 5_000;
/** Files read at once. */
const READ_BATCH = 32;
/** Files larger than this (or than `limits.maxSearchFileBytes`) are not scanned. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** A call in a definition's body: the callee's name, and the call's line. */
export interface Call {
  /** The name called (`f` in `a.b.f()`). */
  callee: string;
  /** 1-based line of the call. */
  line: number;
}

/** A function or method, where it is, and what it calls. */
export interface Definition {
  /** Its own name. */
  name: string;
  /** Its dotted name in its file (`Class.method`). */
  qualified: string;
  /** Its file, as shown to the model. */
  file: string;
  /** 1-based first line. */
  startLine: number;
  /** 1-based last line. */
  endLine: number;
  /** Calls in its body (not in nested definitions): callee name and line. */
  calls: Call[];
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

/**
 * Index the definitions under a directory.
 *
 * @param ctx The tool context.
 * @param start A checked directory.
 * @param skipped Counts the files (and directories) that could not be read or parsed.
 * @returns The definitions, and how many files were indexed.
 */
export async function indexDefinitions(
  ctx: ToolContext,
  start: ResolvedPath,
  skipped: Skipped,
): Promise<{ definitions: Definition[]; files: number }> {
  const definitions: Definition[] = [];
  const limit = Math.min(MAX_FILE_BYTES, ctx.policy.limits.maxSearchFileBytes);
  const byDir = await sourcesByDir(ctx, start, skipped);
  const total = [...byDir.values()].reduce((sum, files) => sum + files.length, 0);
  let done = 0;
  let indexed = 0;
  let lastYield = performance.now();
  for (const [dir, all] of byDir) {
    // A few files at a time: at most READ_BATCH × MAX_FILE_BYTES held at once.
    for (let at = 0; at < all.length; at += READ_BATCH) {
      const batch = all.slice(at, at + READ_BATCH);
      const texts = readTexts(ctx, dir, batch, { limit, skipped });
      for (const [i, file] of batch.entries()) {
        if (yieldDue(ctx, lastYield)) {
          await yieldToWorker(ctx.signal);
          lastYield = performance.now();
        }
        if (++done % 100 === 0) ctx.progress(done, total, `indexed ${done} of ${total} files`);
        const text = texts[i];
        if (text === undefined) continue;
        try {
          const grammar = headerGrammar(file.grammar, file.name, text);
          const tree = await parseForIndex(ctx, text, grammar);
          try {
            definitionsIn(tree.rootNode, grammar, file.display, definitions);
          } finally {
            tree.delete();
          }
          indexed++;
        } catch (error) {
          skipped.failed(file.display, error, ctx.logger);
        }
      }
    }
  }
  return { definitions, files: indexed };
}

interface SourceFile {
  name: string;
  display: string;
  grammar: Grammar;
}

/** The source files under `start` (at most MAX_FILES), grouped by their directory. */
async function sourcesByDir(
  ctx: ToolContext,
  start: ResolvedPath,
  skipped: Skipped,
): Promise<Map<string, SourceFile[]>> {
  const byDir = new Map<string, SourceFile[]>();
  let files = 0;
  const relevant = (name: string) => grammarForPath(name) !== undefined;
  for await (const entry of walk(ctx, start, { filesOnly: true, skipped, relevant })) {
    const grammar = grammarForPath(entry.name);
    if (!grammar) continue;
    if (++files > MAX_FILES) break;
    const dir = entry.path.slice(0, entry.path.lastIndexOf("/")) || "/";
    const list = byDir.get(dir) ?? [];
    list.push({ name: entry.name, display: entry.display, grammar });
    byDir.set(dir, list);
  }
  return byDir;
}

/** Parse one file; C/C++ files that do not parse as written are parsed with conditionals blanked. */
async function parseForIndex(ctx: ToolContext, text: string, grammar: Grammar): Promise<Tree> {
  const tree = await treeSitter(ctx).parseText(text, grammar);
  if ((grammar !== "c" && grammar !== "cpp") || !tree.rootNode.hasError) return tree;
  let other: Tree | undefined;
  try {
    const masked = maskForParsing(text);
    if (masked === undefined) return tree;
    other = await treeSitter(ctx).parseText(masked, grammar);
    const [keep, drop] = errorCount(other) < errorCount(tree) ? [other, tree] : [tree, other];
    drop.delete();
    return keep;
  } catch (error) {
    tree.delete();
    other?.delete();
    throw error;
  }
}

/** Named children still to look at, in a scope, inside a definition's body or not. */
interface Frame {
  children: Array<Node | null>;
  index: number;
  scope: string[];
  /** The definition whose body this is (its calls are recorded), if any. */
  body: Definition | undefined;
}

/**
 * Collect the definitions (and the calls in their bodies) under a node, in
 * source order. Nested definitions get their own entries; a class or
 * namespace adds its name to the scope.
 *
 * @param root The root node.
 * @param grammar The grammar it was parsed with.
 * @param file The file, as shown to the model.
 * @param out Where the definitions go.
 */
export function definitionsIn(root: Node, grammar: Grammar, file: string, out: Definition[]): void {
  const definitionTypes = DEFINITION_TYPES[grammar]!;
  const stack: Frame[] = [{ children: root.namedChildren, index: 0, scope: [], body: undefined }];
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.index >= frame.children.length) {
      stack.pop();
      continue;
    }
    const node = frame.children[frame.index++];
    if (!node) continue;
    const { scope, body } = frame;
    const value = functionValue(node, grammar);
    const name = value?.name ??
      (definitionTypes.has(node.type) ? definitionName(node, grammar) : undefined);
    if (name) {
      const def = define(node, name, scope, file);
      out.push(def);
      const inner = value ? value.body : node.childForFieldName("body");
      if (inner) {
        const parts = [...scope, ...name.split(/::|\./)];
        stack.push({ children: inner.namedChildren, index: 0, scope: parts, body: def });
      }
      continue;
    }
    let childBody = body;
    let childScope = scope;
    if (SCOPE_TYPES.has(node.type)) {
      const scopeName = node.childForFieldName("name")?.text;
      if (scopeName) childScope = [...scope, scopeName];
      childBody = undefined; // a class's methods are definitions of their own
    } else if (definitionTypes.has(node.type)) {
      childBody = undefined; // a definition without a name: looked into, outside any body
    } else if (body && CALL_TYPES.has(node.type)) {
      const callee = calleeName(
        node.childForFieldName("function") ?? node.childForFieldName("constructor"),
      );
      if (callee) body.calls.push({ callee, line: node.startPosition.row + 1 });
    }
    stack.push({ children: node.namedChildren, index: 0, scope: childScope, body: childBody });
  }
}

function define(node: Node, name: string, scope: string[], file: string): Definition {
  const parts = name.split(/::|\./);
  return {
    name: parts.at(-1)!,
    qualified: [...scope, ...parts].join("."),
    file,
    startLine: node.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
    calls: [],
  };
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

const DECLARATOR_NAMES = new Set([
  "identifier",
  "field_identifier",
  "qualified_identifier",
  "destructor_name",
  "operator_name",
]);

function definitionName(node: Node, grammar: Grammar): string | undefined {
  if (grammar === "c" || grammar === "cpp") {
    let declarator = node.childForFieldName("declarator");
    for (let i = 0; declarator && i < 8; i++) {
      if (DECLARATOR_NAMES.has(declarator.type)) return declarator.text;
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
    case "template_function":
      return node.childForFieldName("name")?.text;
    default:
      return undefined;
  }
}
