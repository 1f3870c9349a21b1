/**
 * `py_get_class_summary`: a class's signature, docstring, attributes and
 * method signatures, without bodies.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool, structured } from "../tool.ts";
import { docstringOf } from "./_docstring.ts";
import { findSymbol, loadPython, type PySymbol } from "./_symbols.ts";
import { assignmentsIn } from "./_variables.ts";
import { signatureSpan } from "./signature.ts";

/** Summarize a class. */
export const pyGetClassSummary = defineTool({
  name: "py_get_class_summary",
  description:
    "Summarize a Python class without its method bodies: its signature (bases), docstring, class attributes, and every method's decorators and signature with line numbers (nested classes too). Use it to learn a class's API before reading or editing single methods with py_get_definition.",
  input: z.object({
    path: z.string().min(1).describe("Path of the Python file"),
    name: z.string().min(1).describe('The class, dotted when nested ("Outer.Inner")'),
  }),
  output: z.object({
    name: z.string(),
    start_line: z.number(),
    end_line: z.number(),
    signature: z.string(),
    docstring: z.string().nullable(),
    attributes: z.array(z.object({ line: z.number(), text: z.string() })),
    members: z.array(
      z.object({ kind: z.string(), name: z.string(), line: z.number(), signature: z.string() }),
    ),
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
    const attributes = assignmentsIn(body).map((a) => ({
      line: a.startLine,
      text: a.statement.text.split(/\r\n|\r|\n/)[0]! + (a.endLine > a.startLine ? " …" : ""),
    }));
    const members = cls.children.map((s) => ({
      kind: s.kind,
      name: s.name,
      line: s.node.startPosition.row + 1,
      signature: decorators(s) + signatureOf(s),
    }));
    const out = [`${signatureOf(cls)}  # lines ${cls.startLine}-${cls.endLine}`];
    if (doc) out.push(`    """${doc.replaceAll("\n", "\n    ")}"""`);
    if (attributes.length > 0) {
      out.push("", "  Attributes:");
      for (const a of attributes) out.push(`    ${a.text}  # line ${a.line}`);
    }
    if (members.length > 0) {
      out.push("", "  Members:");
      for (const m of members) out.push(`    ${m.signature}  # line ${m.line}`);
    }
    return structured(out.join("\n"), {
      name: cls.qualified,
      start_line: cls.startLine,
      end_line: cls.endLine,
      signature: signatureOf(cls),
      docstring: doc,
      attributes,
      members,
    });
  },
});
