/**
 * `edit_file`: exact string replacement.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { splitLines } from "../_text.ts";
import { defineTool } from "../tool.ts";
import { editResult, FORCE, loadText, saveText } from "../_edit.ts";

/** Replace an exact string in a file. */
export const editFile = defineTool({
  name: "edit_file",
  description:
    "Replace an exact string in a text file (whitespace included; unique unless replace_all). The file keeps its encoding and line endings.",
  input: z.object({
    path: z.string().min(1),
    old_string: z.string().min(1),
    new_string: z.string(),
    replace_all: z.boolean().default(false),
    force: FORCE,
  }),
  annotations: { title: "Edit file", destructiveHint: true, idempotentHint: false },
  async run({ path, old_string, new_string, replace_all }, ctx) {
    if (old_string === new_string) {
      throw new ToolError(
        "invalid_argument",
        "Cannot edit: old_string and new_string are the same",
      );
    }
    const loaded = await loadText(ctx, path);
    const { resolved, file } = loaded;
    let oldText = old_string;
    let newText = new_string;
    if (file.eol !== "\n" && !file.text.includes(oldText)) {
      oldText = old_string.replace(/\r\n?/g, "\n").replaceAll("\n", file.eol);
      newText = new_string.replace(/\r\n?/g, "\n").replaceAll("\n", file.eol);
    }
    const offsets = occurrences(file.text, oldText);
    if (offsets.length === 0) {
      throw new ToolError(
        "no_match",
        `Cannot find old_string in "${resolved.display}". ${closest(file.text, old_string)}`,
      );
    }
    if (offsets.length > 1 && !replace_all) {
      const lines = offsets.slice(0, 20).map((offset) => lineAt(file.text, offset));
      throw new ToolError(
        "ambiguous_match",
        `old_string occurs ${offsets.length} times in "${resolved.display}" (at lines ${
          lines.join(", ")
        }${
          offsets.length > 20 ? ", …" : ""
        }); include more surrounding text to make it unique, or pass replace_all: true`,
      );
    }
    const updated = replace_all
      ? file.text.split(oldText).join(newText)
      : file.text.replace(oldText, () => newText);
    const diff = saveText(ctx, loaded, updated);
    const first = lineAt(file.text, offsets[0]!);
    return editResult(
      `Replaced ${offsets.length} occurrence${
        offsets.length === 1 ? "" : "s"
      } in "${resolved.display}" (first at line ${first})`,
      [diff],
    );
  },
});

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The lines most like old_string's first non-blank line, with their numbers. */
function closest(text: string, old: string): string {
  const probe = old.split(/\r\n|\r|\n/).find((line) => line.trim() !== "")?.trim() ?? "";
  const lines = splitLines(text).map((line) => line.replace(/\r?\n$|\r$/, ""));
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  if (squash(text).includes(squash(old))) {
    const at = lines.findIndex((line) => squash(line) === squash(probe));
    return `A match that differs only in white space exists${
      at >= 0 ? ` near line ${at + 1}` : ""
    }; copy the text exactly from get_file_slice.`;
  }
  const wanted = bigrams(probe);
  const scored = lines
    .map((line, i) => ({ i, score: dice(wanted, bigrams(line.trim())) }))
    .filter((each) => each.score >= 0.5)
    .sort((a, b) => b.score - a.score)
    .slice(0, 3);
  if (scored.length === 0) {
    return "No similar line was found; read the file again (get_file_slice or grep).";
  }
  const shown = scored.map(({ i }) => {
    const from = Math.max(0, i - 1);
    const to = Math.min(lines.length, i + 2);
    return lines.slice(from, to).map((line, k) =>
      `${String(from + k + 1).padStart(6)}| ${line.slice(0, 200)}`
    ).join("\n");
  });
  return `The closest lines:\n${shown.join("\n  ...\n")}`;
}

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const pair = s.slice(i, i + 2);
    out.set(pair, (out.get(pair) ?? 0) + 1);
  }
  return out;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let total = 0;
  let shared = 0;
  for (const n of a.values()) total += n;
  for (const [pair, n] of b) {
    total += n;
    shared += Math.min(n, a.get(pair) ?? 0);
  }
  return total === 0 ? 0 : (2 * shared) / total;
}
