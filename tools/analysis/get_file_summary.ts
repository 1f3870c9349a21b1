/**
 * `get_file_summary` (seed 001): a heuristic summary of one file by kind:
 * code in the languages the families declare (each family's
 * {@linkcode LanguageReader} summarizes its own), Markdown, TOML, other text.
 *
 * @module
 */

import { z } from "zod";
import { decodeText, describeBinary, isBinary } from "../_text.ts";
import type { LanguageReader, SourceText } from "../family.ts";
import { defineTool, type Tool, type ToolContext, type ToolResult } from "../tool.ts";
import type { ResolvedPath } from "../../security/resolver.ts";
import { formatBytes } from "../../security/safe_fs.ts";
import { Languages } from "./_languages.ts";

/** The most items listed per section. */
const MAX_ITEMS = 60;

type Sections = Record<string, string[]>;

/**
 * The tool that summarizes a file: imports, types, functions, constants,
 * headings or table keys, by kind.
 *
 * @param readers The languages it reads: those the families beside it declare.
 * @returns The `get_file_summary` tool.
 */
export function fileSummaryTool(readers: readonly LanguageReader[]): Tool {
  const languages = new Languages(readers);
  return defineTool({
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
      const { kind, sections } = await summarize(ctx, languages, { resolved, text, lines });
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
}

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

/** What kind a file is, by its name (and a header's contents), and its sections. */
async function summarize(
  ctx: ToolContext,
  languages: Languages,
  file: SourceText,
): Promise<{ kind: string; sections: Sections }> {
  const lower = file.resolved.display.toLowerCase();
  const reading = languages.find(lower, file.text);
  if (reading) {
    const { reader, grammar } = reading;
    return { kind: reader.kind(grammar), sections: await reader.summarize(ctx, file, grammar) };
  }
  const lines = file.lines;
  if (/\.toml$/.test(lower)) return { kind: "toml", sections: toml(lines) };
  if (/\.(md|markdown)$/.test(lower)) {
    return { kind: "markdown", sections: { headings: markdown(lines) } };
  }
  return {
    kind: "text",
    sections: { "first lines": lines.slice(0, 10).map((line) => line.slice(0, 200)) },
  };
}

function toml(lines: readonly string[]): Sections {
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

function markdown(lines: readonly string[]): string[] {
  const out: string[] = [];
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && /^#{1,6}\s/.test(line)) out.push(`${line.trim()} (line ${i + 1})`);
  });
  return out;
}
