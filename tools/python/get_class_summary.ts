/**
 * `py_get_class_summary`: a class's signature, docstring, attributes and
 * method signatures, without bodies.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool, structured } from "../tool.ts";
import { location } from "../_symbols.ts";
import { docstringOf } from "./_docstring.ts";
import { findSymbol, loadPython, type PySymbol } from "./_symbols.ts";
import { assignmentsIn } from "./_variables.ts";
import { signatureSpan } from "./signature.ts";

/** A located entry of a summary. */
interface Located {
  path: string;
  start_line: number;
  end_line: number;
}

/** A class summary, as `structuredContent` has it. */
interface Summary extends Located {
  name: string;
  signature: string;
  docstring: string | null;
  attributes: Array<Located & { text: string }>;
  members: Array<Located & { kind: string; name: string; signature: string }>;
}

/** The summary as text: each line ends with the `# path:start-end` of what it shows. */
function summaryText(summary: Summary): string {
  const at = (e: Located) => `  # ${location(e.path, e.start_line, e.end_line)}`;
  const out = [`${summary.signature}${at(summary)}`];
  if (summary.docstring) out.push(`    """${summary.docstring.replaceAll("\n", "\n    ")}"""`);
  if (summary.attributes.length > 0) {
    out.push("", "  Attributes:");
    for (const a of summary.attributes) out.push(`    ${a.text}${at(a)}`);
  }
  if (summary.members.length > 0) {
    out.push("", "  Members:");
    for (const m of summary.members) out.push(`    ${m.signature}${at(m)}`);
  }
  return out.join("\n");
}

/** Where an entry is. */
const LOCATED = z.object({ path: z.string(), start_line: z.number(), end_line: z.number() });

/** Summarize a class. */
export const pyGetClassSummary = defineTool({
  name: "py_get_class_summary",
  description:
    "A Python class without method bodies: its signature, docstring, attributes and every method's decorators and signature. Learn a class's API in one read.",
  input: z.object({
    path: z.string().min(1),
    name: z.string().min(1),
  }),
  output: z.object({
    path: z.string(),
    name: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    signature: z.string(),
    docstring: z.string().nullable(),
    attributes: z.array(LOCATED.extend({ text: z.string() })),
    members: z.array(LOCATED.extend({ kind: z.string(), name: z.string(), signature: z.string() })),
  }),
  annotations: { title: "Python class summary", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const cls = findSymbol(file, name);
    if (cls.kind !== "class") {
      throw new ToolError(
        "invalid_argument",
        `Cannot summarize "${cls.qualified}": it is a ${cls.kind}, not a class; use py_get_signature or py_get_definition`,
      );
    }
    const source = file.file.text;
    const signatureOf = (s: PySymbol) => {
      const span = signatureSpan(s.node);
      return source.slice(span.start, span.end).replace(/\s*(\r\n|\r|\n)\s*/g, " ");
    };
    const decorators = (s: PySymbol) =>
      s.outer === s.node ? "" : s.outer.namedChildren.filter((c) => c?.type === "decorator")
        .map((c) => c!.text.trim() + " ").join("");
    const body = cls.node.childForFieldName("body")!;
    const doc = docstringOf(body) ?? null;
    const display = file.resolved.display;
    const attributes = assignmentsIn(body).map((a) => ({
      path: display,
      start_line: a.startLine,
      end_line: a.endLine,
      text: a.statement.text.split(/\r\n|\r|\n/)[0]! + (a.endLine > a.startLine ? " …" : ""),
    }));
    const members = cls.children.map((s) => ({
      path: display,
      start_line: s.startLine,
      end_line: s.endLine,
      kind: s.kind,
      name: s.name,
      signature: decorators(s) + signatureOf(s),
    }));
    const summary: Summary = {
      path: display,
      name: cls.qualified,
      start_line: cls.startLine,
      end_line: cls.endLine,
      signature: signatureOf(cls),
      docstring: doc,
      attributes,
      members,
    };
    return structured(summaryText(summary), { ...summary });
  },
});
