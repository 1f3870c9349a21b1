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
import { editDiff, MAX_DIFF_CHARS } from "../_diff.ts";
import { location } from "../_symbols.ts";
import { type AnchorType, withoutSymbol } from "./_place.ts";
import { checkPython } from "./_syntax.ts";
import { collectSymbols, findSymbol, linesOf, loadPython, type PyFile } from "./_symbols.ts";
import { addDefinition, ANCHOR } from "./add_def.ts";

/** Move a definition. */
export const pyMoveDef = defineTool({
  name: "py_move_def",
  description:
    "Move a Python class, function or method within its file or to another (placed as py_add_def does; a new module is created), optionally renamed. Imports and callers are not updated.",
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
    const dest = await existingOrNone(ctx, input.destination);
    const moved: Moved = { removed, name: newName, code };
    if (dest === undefined) {
      return await intoNewModule(ctx, { src, moved, from, destination: input.destination, input });
    }
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

/** The destination's checked path, or `undefined` when no file is there yet (a new module). */
async function existingOrNone(ctx: ToolContext, destination: string) {
  try {
    return await ctx.fs.resolve(destination, "file");
  } catch (error) {
    if (error instanceof ToolError && error.code === "not_found") return undefined;
    throw error;
  }
}

/** Move a definition into a module that does not exist yet: the module is the definition. */
async function intoNewModule(
  ctx: ToolContext,
  move: {
    src: PyFile;
    moved: Moved;
    from: string;
    destination: string;
    input: { allow_syntax_errors: boolean };
  },
) {
  const { src, moved, from, destination } = move;
  if (!destination.endsWith(".py")) {
    throw new ToolError(
      "invalid_argument",
      `Cannot create "${destination}" for the definition: a new module's name ends in .py`,
    );
  }
  const text = dedent(moved.code).replace(/\s*$/, "\n");
  await checkPython(ctx, text, destination, move.input.allow_syntax_errors);
  await checkPython(ctx, moved.removed, src.resolved.display, move.input.allow_syntax_errors);
  const created = await ctx.fs.write(destination, new TextEncoder().encode(text));
  const destDiff = editDiff(created.display, "", text, MAX_DIFF_CHARS / 2);
  const srcDiff = saveText(ctx, src, moved.removed, MAX_DIFF_CHARS / 2);
  const lines = text.split("\n").length - 1;
  const at = location(created.display, 1, lines);
  return editResult(`Moved ${from} to "${moved.name}" at ${at} (a new module)`, [
    srcDiff,
    destDiff,
  ]);
}

/** A method's code at the top level: its common indentation taken off. */
function dedent(code: string): string {
  const lines = code.split(/(?<=\n)/);
  const indents = lines.filter((line) => line.trim() !== "").map((line) =>
    /^[ \t]*/.exec(line)![0].length
  );
  const cut = Math.min(...indents);
  return lines.map((line) => line.slice(Math.min(cut, /^[ \t]*/.exec(line)![0].length))).join("");
}

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
