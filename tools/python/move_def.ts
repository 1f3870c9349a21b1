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
import { defineTool, type ToolContext } from "../tool.ts";
import { ALLOW_SYNTAX_ERRORS, editResult, FORCE, saveText } from "../_edit.ts";
import { MAX_DIFF_CHARS } from "../_diff.ts";
import { location } from "../_symbols.ts";
import { type AnchorType, withoutSymbol } from "./_place.ts";
import { checkPython } from "./_syntax.ts";
import { collectSymbols, findSymbol, linesOf, loadPython, type PyFile } from "./_symbols.ts";
import { addDefinition, ANCHOR } from "./add_def.ts";

/** Move a definition. */
export const pyMoveDef = defineTool({
  name: "py_move_def",
  description:
    "Move a Python class, function or method within its file or to another (placed as py_add_def does), optionally renamed. Imports and callers are not updated.",
  input: z.object({
    source: z.string().min(1),
    destination: z.string().min(1).describe("May be source"),
    name: z.string().min(1),
    destination_name: z.string().default("").describe("A new name"),
    ...ANCHOR,
    allow_syntax_errors: ALLOW_SYNTAX_ERRORS,
    force: FORCE,
  }),
  annotations: { title: "Move Python definition", destructiveHint: true },
  async run(input, ctx) {
    const src = await loadPython(ctx, input.source);
    const symbol = findSymbol(src, input.name);
    const newName = input.destination_name.trim() || symbol.name;
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
    const from = `"${symbol.qualified}" (was ${
      location(src.resolved.display, symbol.startLine, symbol.endLine)
    })`;
    const dest = await ctx.fs.resolve(input.destination, "file");
    const moved: Moved = { removed, name: newName, code };
    if (dest.path === src.resolved.path) {
      const added = await placeAgain(ctx, src, moved, input);
      await checkPython(ctx, added.text, src.resolved.display, input.allow_syntax_errors);
      const diff = saveText(ctx, src, added.text);
      const at = location(src.resolved.display, added.start, added.end);
      return editResult(`Moved ${from} to "${added.qualified}" at ${at}`, [diff]);
    }
    const target = await loadPython(ctx, input.destination);
    const added = addDefinition(target, newName, code, input.anchor_type, input.anchor_symbol);
    await checkPython(ctx, added.text, target.resolved.display, input.allow_syntax_errors);
    await checkPython(ctx, removed, src.resolved.display, input.allow_syntax_errors);
    // Two files share the one bound on what a reply shows of its diffs.
    const destDiff = saveText(ctx, target, added.text, MAX_DIFF_CHARS / 2);
    const srcDiff = saveText(ctx, src, removed, MAX_DIFF_CHARS / 2);
    const at = location(target.resolved.display, added.start, added.end);
    return editResult(`Moved ${from} to "${added.qualified}" at ${at}`, [srcDiff, destDiff]);
  },
});

/** A definition taken out of its file. */
interface Moved {
  /** The source file's text without it. */
  removed: string;
  /** Its name at its new place. */
  name: string;
  /** Its code, renamed. */
  code: string;
}

/** Place a definition moved within its own file, in the text without it. */
async function placeAgain(
  ctx: ToolContext,
  src: PyFile,
  moved: Moved,
  anchor: { anchor_type: AnchorType; anchor_symbol: string },
): Promise<ReturnType<typeof addDefinition>> {
  const tree = await treeSitter(ctx).parseText(moved.removed, "python");
  try {
    const again: PyFile = {
      ...src,
      file: { ...src.file, text: moved.removed },
      tree,
      lines: splitLines(moved.removed),
      symbols: collectSymbols(tree.rootNode),
    };
    return addDefinition(again, moved.name, moved.code, anchor.anchor_type, anchor.anchor_symbol);
  } finally {
    tree.delete();
  }
}
