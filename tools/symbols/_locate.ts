/**
 * What `find_usages` and `rename_symbol` share: how a symbol is named in
 * their input, finding the resolver and the symbol's sites, and showing a
 * site on one line.
 *
 * @module
 */

import { z } from "zod";
import { Skipped } from "../_skipped.ts";
import type { ToolContext } from "../tool.ts";
import type { LanguageResolver, SymbolSite, SymbolSites } from "./_resolver.ts";
import { resolverFor } from "./_resolvers.ts";

/** The input fields that name a symbol: the file that defines it and its dotted name. */
export const SYMBOL_INPUT = Object.freeze({
  path: z.string().min(1).describe("File that defines it"),
  name: z.string().min(1),
});

/** The input field for the directory a symbol's sites are looked for in. */
export const SCOPE_INPUT = z.string().min(1).optional().describe(
  "Directory to search (default: its root)",
);

/** A symbol found, with its sites. */
export interface Located {
  /** The resolver that found it. */
  readonly resolver: LanguageResolver;
  /** Its definition and sites. */
  readonly found: SymbolSites;
  /** What could not be read. */
  readonly skipped: Skipped;
}

/**
 * Find a symbol and its sites.
 *
 * @param ctx The tool context.
 * @param path The file that defines (or imports) it.
 * @param name Its dotted name in that file.
 * @param scope The directory searched; by default the root that holds `path`.
 * @param rename The sites are for a rename (resolved afresh, never a kept answer).
 * @returns The resolver, the sites and what was skipped.
 * @throws {ToolError} `unsupported` for a language without a resolver; the resolver's errors.
 */
export async function locate(
  ctx: ToolContext,
  path: string,
  name: string,
  scope: string | undefined,
  rename = false,
): Promise<Located> {
  const resolver = resolverFor(path);
  const file = await ctx.fs.resolve(path, "file");
  const skipped = new Skipped();
  const target = { path, name, rename };
  const found = await resolver.findSites(ctx, target, scope ?? file.root, skipped);
  return { resolver, found, skipped };
}

/**
 * A site as one line: `path:line:column [role] code`, with the alias it is
 * reached by and, for an unsure site, why.
 *
 * @param site The site.
 * @returns The line.
 */
export function siteLine(site: SymbolSite): string {
  const via = site.via === undefined ? "" : ` via ${site.via}`;
  const unsure = site.certainty === "unsure" ? `, unsure: ${site.reason ?? "dynamic"}` : "";
  return `${site.path}:${site.line}:${site.column} [${site.role}${via}${unsure}] ${site.text}`;
}

/**
 * How many sites are unsure.
 *
 * @param sites The sites.
 * @returns The count.
 */
export function unsureCount(sites: readonly SymbolSite[]): number {
  return sites.filter((site) => site.certainty === "unsure").length;
}
