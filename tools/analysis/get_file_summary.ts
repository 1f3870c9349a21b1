/**
 * `get_file_summary` (seed 001): a heuristic summary of one file by kind.
 *
 * @module
 */

import { z } from "zod";
import type { Node } from "web-tree-sitter";
import { decodeText, describeBinary, isBinary } from "../_text.ts";
import { grammarForPath, MAX_NESTING, tooDeep, treeSitter } from "../_treesitter.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { flattenSymbols } from "../_symbols.ts";
import { cSymbols } from "../cfamily/_symbols.ts";
import { headerGrammar, parseC } from "../cfamily/_parse.ts";
import { jsSymbols } from "../typescript/_symbols.ts";
import { formatBytes } from "../../security/safe_fs.ts";

/** The most items listed per section. */
const MAX_ITEMS = 60;

type Sections = Record<string, string[]>;

/** Summarize a file: imports, types, functions, constants, headings or table keys, by kind. */
export const getFileSummary = defineTool({
  name: "get_file_summary",
  description:
    "A short summary of any file (code: imports, types, functions; Markdown: headings; TOML: tables; other: size and first lines).",
  input: z.object({ path: z.string().min(1) }),
  output: z.object({
    path: z.string(),
    kind: z.string(),
    lines: z.number(),
    bytes: z.number(),
    sections: z.record(z.string(), z.array(z.string())),
  }),
  annotations: { title: "File summary", readOnlyHint: true, idempotentHint: true },
  async run({ path }, ctx) {
    const { resolved, bytes } = await ctx.fs.read(path, ctx.policy.limits.maxEditBytes);
    if (isBinary(bytes)) return binarySummary(resolved, bytes);
    const text = decodeText(bytes, resolved.display).text;
    const lines = text.split(/\r\n|\r|\n/);
    const { kind, sections } = await summarize(ctx, resolved, { text, lines });
    const bounded = Object.fromEntries(
      Object.entries(sections).map(([key, items]) => [key, items.slice(0, MAX_ITEMS)]),
    );
    const body = Object.entries(sections).map(([key, items]) =>
      `${key} (${items.length}):${items.length ? "\n" : " none"}${
        items.slice(0, MAX_ITEMS).map((item) => `  ${item}`).join("\n")
      }${items.length > MAX_ITEMS ? `\n  … ${items.length - MAX_ITEMS} more` : ""}`
    );
    const count = text.length === 0 ? 0 : lines.length - (text.endsWith("\n") ? 1 : 0);
    return {
      content: [{
        type: "text",
        text: [
          `${resolved.display}: ${kind}, ${count} lines, ${formatBytes(bytes.length)}`,
          ...body,
        ].join("\n"),
      }],
      structuredContent: {
        path: resolved.display,
        kind,
        lines: count,
        bytes: bytes.length,
        sections: bounded,
      },
    };
  },
});

/** A binary file's summary: structured like every other kind (a client checks it against the output schema). */
function binarySummary(resolved: ResolvedPath, bytes: Uint8Array): ToolResult {
  return {
    content: [{
      type: "text",
      text: `${resolved.display}: binary (${describeBinary(bytes)}), ${formatBytes(bytes.length)}`,
    }],
    structuredContent: {
      path: resolved.display,
      kind: "binary",
      lines: 0,
      bytes: bytes.length,
      sections: {},
    },
  };
}

/** A text file: its text, and its lines. */
interface TextOf {
  text: string;
  lines: string[];
}

/** What kind a file is, by its name (and a header's contents), and its sections. */
async function summarize(
  ctx: ToolContext,
  resolved: ResolvedPath,
  { text, lines }: TextOf,
): Promise<{ kind: string; sections: Sections }> {
  const lower = resolved.display.toLowerCase();
  const byName = grammarForPath(lower);
  const grammar = byName && headerGrammar(byName, lower, text);
  if (grammar === "python") return { kind: "python", sections: await python(ctx, resolved, text) };
  if (grammar === "c" || grammar === "cpp") {
    return { kind: grammar, sections: await cFamily(ctx, resolved, { text, lines }, grammar) };
  }
  if (grammar === "typescript" || grammar === "tsx") {
    return {
      kind: grammar === "typescript" ? "typescript" : "javascript/tsx",
      sections: await typescript(ctx, resolved, text, grammar),
    };
  }
  if (/\.toml$/.test(lower)) return { kind: "toml", sections: toml(lines) };
  if (/\.(md|markdown)$/.test(lower)) {
    return { kind: "markdown", sections: { headings: markdown(lines) } };
  }
  return {
    kind: "text",
    sections: { "first lines": lines.slice(0, 10).map((line) => line.slice(0, 200)) },
  };
}

async function cFamily(
  ctx: ToolContext,
  resolved: ResolvedPath,
  { text, lines }: TextOf,
  grammar: "c" | "cpp",
): Promise<Sections> {
  const tree = await parseC(ctx, resolved, text, grammar);
  const symbols = flattenSymbols(cSymbols(tree.tree));
  return {
    includes: lines.filter((line) => /^\s*#\s*include\b/.test(line)).map((line) => line.trim()),
    types: symbols.filter((s) =>
      ["struct", "union", "enum", "typedef", "class", "namespace"].includes(s.kind)
    )
      .map((s) => `${s.kind} ${s.qualified} (line ${s.startLine})`),
    functions: symbols.filter((s) => ["function", "method", "prototype"].includes(s.kind))
      .map((s) =>
        `${s.qualified}${s.kind === "prototype" ? " (prototype)" : ""} (line ${s.startLine})`
      ),
  };
}

async function typescript(
  ctx: ToolContext,
  resolved: ResolvedPath,
  text: string,
  grammar: "typescript" | "tsx",
): Promise<Sections> {
  const tree = await treeSitter(ctx).parseFile(resolved, text, grammar);
  const exported = new Set<number>();
  for (const child of tree.tree.rootNode.namedChildren) {
    if (child?.type === "export_statement") exported.add(child.startIndex);
  }
  return {
    imports: tree.tree.rootNode.namedChildren.filter((n) => n?.type === "import_statement").map(
      (n) => oneLine(n!.text),
    ),
    exports: flattenSymbols(jsSymbols(tree.tree)).filter((s) => exported.has(s.startIndex))
      .map((s) => `${s.kind} ${s.qualified} (line ${s.startLine})`),
  };
}

async function python(ctx: ToolContext, resolved: ResolvedPath, text: string): Promise<Sections> {
  const { tree } = await treeSitter(ctx).parseFile(resolved, text, "python");
  const sections: Sections = { imports: [], classes: [], functions: [], constants: [] };
  // `depth` is 0 at module level (and in its if/try/with blocks); `nesting` counts those blocks.
  const visit = (node: Node, depth: number, nesting: number) => {
    if (nesting > MAX_NESTING) throw tooDeep(node);
    for (const child of node.namedChildren) {
      if (!child) continue;
      const inner = child.type === "decorated_definition"
        ? child.childForFieldName("definition") ?? child
        : child;
      const line = child.startPosition.row + 1;
      if (
        child.type === "import_statement" || child.type === "import_from_statement" ||
        child.type === "future_import_statement"
      ) {
        sections.imports!.push(oneLine(child.text));
      } else if (inner.type === "class_definition") {
        sections.classes!.push(`${inner.childForFieldName("name")?.text} (line ${line})`);
      } else if (inner.type === "function_definition" && depth === 0) {
        sections.functions!.push(`${inner.childForFieldName("name")?.text} (line ${line})`);
      } else if (child.type === "expression_statement" && depth === 0) {
        const assignment = child.namedChildren[0];
        const left = assignment?.type === "assignment"
          ? assignment.childForFieldName("left")
          : null;
        if (left?.type === "identifier" && /^[A-Z][A-Z0-9_]*$/.test(left.text)) {
          sections.constants!.push(`${left.text} (line ${line})`);
        }
      } else if (
        ["if_statement", "try_statement", "with_statement", "block"].includes(child.type) &&
        depth === 0
      ) {
        visit(child, depth, nesting + 1);
      }
    }
  };
  visit(tree.rootNode, 0, 0);
  return sections;
}

function toml(lines: string[]): Sections {
  const tables: string[] = [];
  const top: string[] = [];
  let inTable = false;
  lines.forEach((line, i) => {
    const table = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (table) {
      inTable = true;
      tables.push(
        `${line.trim().startsWith("[[") ? `[[${table[1]}]]` : `[${table[1]}]`} (line ${i + 1})`,
      );
    } else if (!inTable) {
      const key = /^\s*([A-Za-z0-9_."-]+)\s*=/.exec(line);
      if (key) top.push(key[1]!);
    }
  });
  return { "top-level keys": top, tables };
}

function markdown(lines: string[]): string[] {
  const out: string[] = [];
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && /^#{1,6}\s/.test(line)) out.push(`${line.trim()} (line ${i + 1})`);
  });
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
