/**
 * `py_get_var_declaration` and `py_set_var_declaration`: module- and
 * class-level variables.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool, structured } from "../tool.ts";
import { editResult } from "../_edit.ts";
import { PY_REPLACE_INPUT } from "./definition.ts";
import { location } from "../_symbols.ts";
import { reindent, replaceLines } from "./_place.ts";
import { savePython } from "./_syntax.ts";
import { findSymbol, indentOf, linesOf, parseName, type PyFile } from "./_symbols.ts";
import { loadPython } from "./_symbols.ts";
import { type Assignment, assignmentsIn } from "./_variables.ts";

const NAME = z.string().min(1).describe('"NAME" or "Class.attr"; "NAME@LINE" picks one');

function findAssignments(file: PyFile, name: string): { label: string; found: Assignment[] } {
  const { path, line } = parseName(name);
  const dot = path.lastIndexOf(".");
  const variable = path.slice(dot + 1);
  const owner = dot < 0 ? undefined : findSymbol(file, path.slice(0, dot));
  if (owner && owner.kind !== "class") {
    throw new ToolError(
      "invalid_argument",
      `Cannot look for "${variable}" in ${owner.kind} "${owner.qualified}": only module and class variables are declarations`,
    );
  }
  const body = owner ? owner.node.childForFieldName("body")! : file.tree.rootNode;
  const all = assignmentsIn(body);
  let found = all.filter((a) => a.names.includes(variable));
  if (line !== undefined) found = found.filter((a) => a.startLine <= line && line <= a.endLine);
  if (found.length === 0) {
    const names = [...new Set(all.flatMap((a) => a.names))];
    throw new ToolError(
      "not_found",
      `Cannot find an assignment to "${path}" in "${file.resolved.display}"${
        names.length > 0
          ? `; ${owner ? `"${owner.qualified}"` : "the module"} assigns: ${
            names.slice(0, 30).join(", ")
          }${names.length > 30 ? ", …" : ""}`
          : ""
      }`,
    );
  }
  return { label: path, found };
}

/** Read a variable's assignment(s). */
export const pyGetVarDeclaration = defineTool({
  name: "py_get_var_declaration",
  description:
    "The assignment(s) of a module variable or class attribute, each after its path:start-end.",
  input: z.object({ path: z.string().min(1), name: NAME }),
  output: z.object({
    declarations: z.array(
      z.object({
        path: z.string(),
        start_line: z.number(),
        end_line: z.number(),
        text: z.string(),
      }),
    ),
  }),
  annotations: { title: "Python variable", readOnlyHint: true, idempotentHint: true },
  async run({ path, name }, ctx) {
    const file = await loadPython(ctx, path);
    const { label, found } = findAssignments(file, name);
    const display = file.resolved.display;
    const declarations = found.map((a) => ({
      path: display,
      start_line: a.startLine,
      end_line: a.endLine,
      text: linesOf(file, a.startLine, a.endLine),
    }));
    const text = declarations.map((d) =>
      `${location(display, d.start_line, d.end_line)} ${label}\n${d.text}`
    ).join("\n");
    return structured(text, { declarations });
  },
});

/** Replace a variable's assignment. */
export const pySetVarDeclaration = defineTool({
  name: "py_set_var_declaration",
  description:
    "Replace the assignment of a module variable or class attribute with `content` (a whole statement, re-indented).",
  input: PY_REPLACE_INPUT,
  annotations: { title: "Replace Python variable", destructiveHint: true, idempotentHint: true },
  async run({ path, name, content, allow_syntax_errors }, ctx) {
    const file = await loadPython(ctx, path);
    const { label, found } = findAssignments(file, name);
    if (found.length > 1) {
      throw new ToolError(
        "ambiguous_match",
        `"${label}" is assigned ${found.length} times in "${file.resolved.display}" (at lines ${
          found.map((a) => a.startLine).join(", ")
        }); pass "${label}@${found[0]!.startLine}" to pick one`,
      );
    }
    const target = found[0]!;
    const indent = indentOf(file.lines[target.startLine - 1]!);
    const text = replaceLines(
      file,
      target.startLine,
      target.endLine,
      reindent(content.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd(), indent),
    );
    if (text === file.file.text) {
      return editResult(`"${label}" already reads so; nothing changed`, []);
    }
    const diff = await savePython(ctx, file, text, allow_syntax_errors);
    return editResult(
      `Replaced the assignment of "${label}" (was ${
        location(file.resolved.display, target.startLine, target.endLine)
      })`,
      [diff],
    );
  },
});
