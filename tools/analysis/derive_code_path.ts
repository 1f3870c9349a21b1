/**
 * `derive_code_path` (seed 001): a multi-level call graph from one function,
 * across the files of the roots in the languages the families declare
 * (Python, C/C++ and TypeScript/JavaScript). Name-based and heuristic — a call is linked to every definition with the
 * callee's name — and said to be so in the output.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { Skipped, SKIPPED_OUTPUT } from "../_skipped.ts";
import type { LanguageReader } from "../family.ts";
import { defineTool, type Tool } from "../tool.ts";
import { type Call, type Definition, indexDefinitions } from "./_index.ts";
import { Languages } from "./_languages.ts";

/** The most edges in one answer. */
export const MAX_EDGES = 300;

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

/**
 * The tool that traces what a function calls, level by level, across the roots.
 *
 * @param readers The languages it reads: those the families beside it declare.
 * @returns The `derive_code_path` tool.
 */
export function deriveCodePathTool(readers: readonly LanguageReader[]): Tool {
  const languages = new Languages(readers);
  return defineTool({
    name: "derive_code_path",
    description:
      "Trace what a function calls, and what those call, to max_depth across the Python, C/C++ and TS/JS files under `path`; by name, each edge with file:line.",
    input: z.object({
      name: z.string().min(1).describe("`func`, `Class.method`, `Class::method` or `file:func`"),
      max_depth: z.number().int().min(1).max(8).default(3),
      path: z.string().min(1).default("."),
    }),
    output: z.object({
      name: z.string(),
      heuristic: z.boolean(),
      edges: z.array(EDGE),
      files_scanned: z.number(),
      truncated: z.boolean(),
      skipped: SKIPPED_OUTPUT,
    }),
    annotations: { title: "Derive code path", readOnlyHint: true },
    async run({ name, max_depth, path }, ctx) {
      const start = await ctx.fs.resolve(path, "directory");
      const skipped = new Skipped();
      const { definitions, files } = await indexDefinitions(ctx, start, { languages, skipped });
      const roots = findTarget(definitions, name, skipped);
      const tracer = new PathTracer(byCalledName(definitions), max_depth);
      for (const root of roots) tracer.trace(root);
      const { edges, lines, truncated } = tracer;
      const header =
        `Call path from ${name} (heuristic: calls are matched to definitions by name; depth ${max_depth}; ${files} files scanned)`;
      const footer = truncated
        ? [`[cut at ${MAX_EDGES} edges: lower max_depth or narrow path]`]
        : [];
      return {
        content: [{
          type: "text",
          text: skipped.appendTo([header, ...lines, ...footer].join("\n")),
        }],
        structuredContent: {
          name,
          heuristic: true,
          edges,
          files_scanned: files,
          truncated,
          skipped: skipped.summary(),
        },
      };
    },
  });
}

/** The definitions by the name a call uses: `App()` / `new App()` reaches `App.__init__` / `App.constructor`. */
function byCalledName(definitions: readonly Definition[]): Map<string, Definition[]> {
  const byName = new Map<string, Definition[]>();
  for (const def of definitions) {
    const parts = def.qualified.split(".");
    const key = (def.name === "__init__" || def.name === "constructor") && parts.length > 1
      ? parts.at(-2)!
      : def.name;
    const named = byName.get(key);
    if (named) named.push(def);
    else byName.set(key, [def]);
  }
  return byName;
}

/** Where a definition's calls are followed from: its level, the definitions above it, the indentation. */
interface Level {
  depth: number;
  stack: Definition[];
  indent: string;
}

/** Follows calls from definitions, level by level, into edges and lines of text. */
class PathTracer {
  /** The edges, in the order they were found. */
  readonly edges: CallEdge[] = [];
  /** The path as text, one line per definition or call. */
  readonly lines: string[] = [];
  #truncated = false;
  #expanded = new Set<Definition>();
  #byName: Map<string, Definition[]>;
  #maxDepth: number;

  constructor(byName: Map<string, Definition[]>, maxDepth: number) {
    this.#byName = byName;
    this.#maxDepth = maxDepth;
  }

  /** True when the edges reached {@linkcode MAX_EDGES}. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** Trace the calls from one root definition. */
  trace(root: Definition): void {
    this.lines.push(`${root.qualified}  defined at ${root.file}:${root.startLine}-${root.endLine}`);
    this.#visit(root, { depth: 1, stack: [root], indent: "  " });
  }

  #visit(def: Definition, level: Level): void {
    this.#expanded.add(def);
    const seen = new Set<string>();
    const external: string[] = [];
    for (const call of def.calls) {
      if (seen.has(call.callee)) continue;
      seen.add(call.callee);
      const targets = this.#byName.get(call.callee) ?? [];
      if (targets.length === 0) {
        external.push(call.callee);
        continue;
      }
      if (!this.#follow(def, { call, targets }, level)) return;
    }
    if (external.length) {
      this.lines.push(
        `${level.indent}· not defined under the scanned path: ${external.slice(0, 12).join(", ")}${
          external.length > 12 ? ", …" : ""
        }`,
      );
    }
  }

  /** Record one edge, and its line of text. */
  #record(
    def: Definition,
    { call, targets }: { call: Call; targets: Definition[] },
    { callee, cycle, level }: { callee: Definition; cycle: boolean; level: Level },
  ): void {
    const site = `${def.file}:${call.line}`;
    const at = `${callee.file}:${callee.startLine}-${callee.endLine}`;
    this.edges.push({
      from: def.qualified,
      to: callee.qualified,
      call_site: site,
      defined_at: at,
      depth: level.depth,
      cycle,
    });
    const note = cycle
      ? " (cycle: not followed)"
      : this.#expanded.has(callee)
      ? " (followed above)"
      : "";
    const many = targets.length > 1 ? ` [${targets.length} definitions named ${call.callee}]` : "";
    this.lines.push(
      `${level.indent}→ ${callee.qualified}  called at ${site}, defined at ${at}${many}${note}`,
    );
  }

  /** Follow one call to (at most five of) its targets; false when the edges ran out. */
  #follow(
    def: Definition,
    { call, targets }: { call: Call; targets: Definition[] },
    level: Level,
  ): boolean {
    const sameFile = targets.filter((each) => each.file === def.file);
    for (const callee of (sameFile.length ? sameFile : targets).slice(0, 5)) {
      if (this.edges.length >= MAX_EDGES) {
        this.#truncated = true;
        return false;
      }
      const cycle = level.stack.includes(callee);
      this.#record(def, { call, targets }, { callee, cycle, level });
      if (!cycle && !this.#expanded.has(callee) && level.depth < this.#maxDepth) {
        this.#visit(callee, {
          depth: level.depth + 1,
          stack: [...level.stack, callee],
          indent: `${level.indent}  `,
        });
      }
    }
    return true;
  }
}

function findTarget(definitions: Definition[], target: string, skipped: Skipped): Definition[] {
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
      `No function "${target}" was found${inFile ? ` in "${inFile}"` : ""} under the scanned path${
        skipped.count > 0 ? ` (${skipped.note()})` : ""
      }`,
    );
  }
  if (found.length > 1) {
    const list = found.slice(0, 20).map((def) =>
      `${def.file}:${def.qualified} (line ${def.startLine})`
    ).join(", ");
    throw new ToolError(
      "ambiguous_match",
      `"${target}" names ${found.length} functions: ${list}; use file:func`,
    );
  }
  return found;
}
