/**
 * `find_usages`: the uses of one symbol (a file and a dotted name), resolved
 * through scopes, imports and attributes, by the resolver of the file's language.
 *
 * @module
 */

import { z } from "zod";
import { SKIPPED_OUTPUT } from "../_skipped.ts";
import { defineTool, structured } from "../tool.ts";
import { locate, SCOPE_INPUT, siteLine, SYMBOL_INPUT, unsureCount } from "./_locate.ts";

const SITE = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  role: z.string(),
  certainty: z.enum(["exact", "unsure"]),
  reason: z.string().optional(),
  via: z.string().optional(),
  text: z.string(),
});

/** List a symbol's uses. */
export const findUsages = defineTool({
  name: "find_usages",
  description:
    "Uses of one symbol (file + dotted name) across the project, resolved through scopes and imports, unlike grep. Unsure sites say why.",
  input: z.object({
    ...SYMBOL_INPUT,
    scope: SCOPE_INPUT,
    limit: z.number().int().min(1).max(2000).default(200),
    offset: z.number().int().min(0).default(0),
  }),
  output: z.object({
    definition: z.string().describe("path:start-end"),
    note: z.string().optional(),
    sites: z.array(SITE),
    total: z.number(),
    unsure: z.number(),
    files: z.number().describe("Files with a site"),
    files_searched: z.number(),
    truncated: z.boolean(),
    next_offset: z.number().optional(),
    skipped: SKIPPED_OUTPUT,
  }),
  annotations: { title: "Find usages", readOnlyHint: true, idempotentHint: true },
  async run({ path, name, scope, limit, offset }, ctx) {
    const { found, skipped } = await locate(ctx, path, name, scope);
    const page = found.sites.slice(offset, offset + limit);
    const truncated = found.sites.length > offset + page.length;
    const unsure = unsureCount(found.sites);
    const lines = [`Definition: ${found.definition}`];
    if (found.note) lines.push(found.note);
    lines.push(...page.map(siteLine));
    const files = new Set(found.sites.map((site) => site.path)).size;
    const summary = `${plural(found.sites.length, "site")}${
      unsure > 0 ? ` (${unsure} unsure: listed, never renamed)` : ""
    } in ${plural(files, "file")} (${plural(found.filesSearched, "file")} searched)`;
    lines.push(
      truncated
        ? `${summary}; shown ${offset + 1}-${offset + page.length}: call again with offset: ${
          offset + page.length
        }`
        : summary,
    );
    const data: Record<string, unknown> = {
      definition: found.definition,
      sites: page.map(({ start: _start, end: _end, ...site }) => site),
      total: found.sites.length,
      unsure,
      files,
      files_searched: found.filesSearched,
      truncated,
      skipped: skipped.summary(),
    };
    if (found.note) data.note = found.note;
    if (truncated) data.next_offset = offset + page.length;
    return structured(skipped.appendTo(lines.join("\n")), data);
  },
});

/** `1 site`, `4 sites`. */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
