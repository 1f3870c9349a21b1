/**
 * `py_move_def`: move a class or function to another place, in the same
 * file or another one, optionally renaming it.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { splitLines } from "../_text.ts";
import { treeSitter } from "../_treesitter.ts";
import { defineTool } from "../tool.ts";
import { saveText } from "../_edit.ts";
import { withoutSymbol } from "./_place.ts";
import { checkPython } from "./_syntax.ts";
import { collectSymbols, findSymbol, linesOf, loadPython, type PyFile } from "./_symbols.ts";
import { addDefinition, ANCHOR } from "./add_def.ts";

/** Move a definition. */
export const pyMoveDef = defineTool({
  name: "py_move_def",
  description:
    "Move a Python class, function or method (decorators included) from src_path to dest_path — another file or the same one — placed like py_add_def (anchor_type before/after a definition, start/end of a class or of the module), re-indented to its new place (a method can become a function and back), optionally renamed with dest_name. Both files must still parse afterwards or nothing is written (syntax_error, unless allow_syntax_errors). Imports and call sites are not updated: check them with py_find_usages.",
  input: z.object({
    src_path: z.string().min(1).describe("The file the definition is in"),
    dest_path: z.string().min(1).describe("The file to move it to (may be src_path)"),
    name: z.string().min(1).describe('Dotted name in src_path ("func", "Class.method")'),
    dest_name: z.string().default("").describe("A new name for it (empty: keep its name)"),
    ...ANCHOR,
    allow_syntax_errors: z.boolean().default(false).describe(
      "Write even when a file would no longer parse",
    ),
    force: z.boolean().default(false).describe(
      "Edit even if a file changed since you last read it (otherwise that is refused with stale_read)",
    ),
  }),
  annotations: { title: "Move Python definition", destructiveHint: true },
  async run(input, ctx) {
    const src = await loadPython(ctx, input.src_path);
    const symbol = findSymbol(src, input.name);
    const newName = input.dest_name.trim() || symbol.name;
    if (!/^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]*$/u.test(newName)) {
      throw new ToolError(
        "invalid_argument",
        `Cannot rename to "${newName}": not a Python identifier`,
      );
    }
    let code = linesOf(src, symbol.startLine, symbol.endLine);
    const nameNode = symbol.node.childForFieldName("name")!;
    const base = src.lines.slice(0, symbol.startLine - 1).join("").length;
    code = code.slice(0, nameNode.startIndex - base) + newName +
      code.slice(nameNode.endIndex - base);
    const removed = withoutSymbol(src, symbol);
    const from =
      `"${symbol.qualified}" (lines ${symbol.startLine}-${symbol.endLine} of "${src.resolved.display}")`;
    const dest = await ctx.fs.resolve(input.dest_path, "file");
    if (dest.path === src.resolved.path) {
      const tree = await treeSitter(ctx).parseText(removed, "python");
      let added;
      try {
        const again: PyFile = {
          ...src,
          file: { ...src.file, text: removed },
          tree,
          lines: splitLines(removed),
          symbols: collectSymbols(tree.rootNode),
        };
        added = addDefinition(again, newName, code, input.anchor_type, input.anchor_symbol);
      } finally {
        tree.delete();
      }
      await checkPython(ctx, added.text, src.resolved.display, input.allow_syntax_errors);
      saveText(ctx, src, added.text);
      return `Moved ${from} to "${added.qualified}" at lines ${added.start}-${added.end}`;
    }
    const target = await loadPython(ctx, input.dest_path);
    const added = addDefinition(target, newName, code, input.anchor_type, input.anchor_symbol);
    await checkPython(ctx, added.text, target.resolved.display, input.allow_syntax_errors);
    await checkPython(ctx, removed, src.resolved.display, input.allow_syntax_errors);
    saveText(ctx, target, added.text);
    saveText(ctx, src, removed);
    return `Moved ${from} to "${added.qualified}" at lines ${added.start}-${added.end} of "${target.resolved.display}"`;
  },
});
