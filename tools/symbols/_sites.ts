/**
 * Sites with certainty, as every symbol resolver hands them to the tools:
 * each place once, the definition's own site first, then by path (as the
 * walk orders them) and position; each placed in its line with the line's
 * text.
 *
 * @module
 */

import type { SiteRole, SymbolSite } from "./_resolver.ts";
import { comparePaths } from "../_walk.ts";
import type { LinePlace } from "./_lines.ts";
import { position, type SourceFile } from "./_source_index.ts";

/** A site found by a resolver over a {@linkcode SourceFile} index, before it is placed in lines. */
export interface RawSite {
  /** The file's real path. */
  file: string;
  /** Offset of the name. */
  start: number;
  /** What it is. */
  role: SiteRole;
  /** Sure or not. */
  certainty: "exact" | "unsure";
  /** Why not sure. */
  reason?: string;
}

/** What a site is and where its name is in its file, in whatever form a resolver keeps its files. */
export interface SiteSpan {
  /** Offset of the name. */
  readonly start: number;
  /** Offset just past it. */
  readonly end: number;
  /** What it is. */
  readonly role: SiteRole;
  /** Sure or not. */
  readonly certainty: "exact" | "unsure";
  /** Why not sure. */
  readonly reason?: string;
  /** The other name it reaches the symbol by. */
  readonly via?: string;
}

/** How much of a site's line is shown, and what marks a cut (`…`, or nothing). */
export interface LineCut {
  /** The most characters shown. */
  readonly max: number;
  /** Written after a line that was cut. */
  readonly mark: string;
}

/** The most characters of a site's line the index-based resolvers show. */
const INDEX_CUT: LineCut = { max: 300, mark: "…" };

/**
 * A site as the tools show it.
 *
 * @param display The file as shown.
 * @param at Where the site's name is (`placeOf` in `_lines.ts`).
 * @param span The site.
 * @param cut How much of the line is shown.
 * @returns The site.
 */
export function shownSite(
  display: string,
  at: LinePlace,
  span: SiteSpan,
  cut: LineCut,
): SymbolSite {
  const text = at.text.length > cut.max ? `${at.text.slice(0, cut.max)}${cut.mark}` : at.text;
  const out: SymbolSite = {
    path: display,
    line: at.line,
    column: at.column,
    start: span.start,
    end: span.end,
    role: span.role,
    certainty: span.certainty,
    text,
  };
  if (span.reason !== undefined) out.reason = span.reason;
  if (span.via !== undefined) out.via = span.via;
  return out;
}

/**
 * Each place once: the first site of each key.
 *
 * @param sites The sites.
 * @param key A site's place (its file and offset).
 * @returns The sites, in their order.
 */
export function uniqueSites<S>(sites: readonly S[], key: (site: S) => string): S[] {
  const seen = new Set<string>();
  return sites.filter((site) => {
    const each = key(site);
    if (seen.has(each)) return false;
    seen.add(each);
    return true;
  });
}

/**
 * Sites in the order the tools list them: the definition's own first, then
 * by path (as the walk orders them) and position.
 *
 * @param sites The sites (sorted in place).
 * @param pathOf A site's path as shown.
 * @param isDefinition Whether a site is the definition's own.
 * @returns The same array.
 */
export function sortSites<S extends { readonly start: number }>(
  sites: S[],
  pathOf: (site: S) => string,
  isDefinition: (site: S) => boolean,
): S[] {
  return sites.sort((a, b) =>
    Number(isDefinition(b)) - Number(isDefinition(a)) || comparePaths(pathOf(a), pathOf(b)) ||
    a.start - b.start
  );
}

/**
 * Raw sites placed in lines (each place once): the definition's own site
 * first, then by path and position.
 *
 * @param fileOf The file of a real path.
 * @param raw The sites.
 * @param length The name's length.
 * @param definition Where the symbol is defined.
 * @returns The sites.
 */
export function placeSites(
  fileOf: (path: string) => SourceFile<unknown>,
  raw: readonly RawSite[],
  length: number,
  definition: { file: string; lines: readonly [number, number] },
): SymbolSite[] {
  const sites = uniqueSites(raw, (site) => `${site.file}\0${site.start}`).map((site) => {
    const file = fileOf(site.file);
    const span = { ...site, end: site.start + length };
    return shownSite(file.display, position(file, site.start), span, INDEX_CUT);
  });
  const home = fileOf(definition.file).display;
  const [first, last] = definition.lines;
  return sortSites(
    sites,
    (site) => site.path,
    (s) => s.role === "definition" && s.path === home && s.line >= first && s.line <= last,
  );
}
