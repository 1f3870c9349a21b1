/**
 * DuckDuckGo's HTML results page read with the HTML parser: each organic
 * result (`.result`, ads left out) as its title (`.result__a`), its URL (the
 * `uddg` target of DuckDuckGo's `/l/` redirect, or the link itself) and its
 * snippet (`.result__snippet`). A page without its results list — empty, a
 * challenge page, a new layout — is an error that says so, never an empty
 * success; a page that says there are no results is `no_results`.
 *
 * @module
 */

import { fromHtml } from "hast-util-from-html";
import { select, selectAll } from "hast-util-select";
import { toText } from "hast-util-to-text";
import type { Element } from "hast";
import type { SearchHit } from "../../tools/network.ts";
import { NetError } from "./protocol.ts";

/**
 * The URL that asks the endpoint for a query.
 *
 * @param endpoint `net.searchUrl`.
 * @param query The query.
 * @returns The URL (`?q=…` added to the endpoint's own query).
 */
export function searchUrl(endpoint: string, query: string): URL {
  const url = new URL(endpoint);
  url.searchParams.set("q", query);
  return url;
}

/**
 * The results on a results page.
 *
 * @param html The page.
 * @param page Where it came from (links resolve against it; named in errors).
 * @param query The query (named in errors).
 * @param maxResults The most results.
 * @returns The results, at least one.
 * @throws {NetError} `no_results` when the page says so, `bad_response` when it has no results list.
 */
export function searchHits(
  html: string,
  page: URL,
  query: string,
  maxResults: number,
): SearchHit[] {
  const tree = fromHtml(html);
  const results = selectAll(".result", tree).filter((result) => !isAd(result));
  const hits = results.map((result) => hitOf(result, page)).filter((hit) => hit !== null);
  if (hits.length > 0) return hits.slice(0, maxResults);
  if (select(".no-results", tree)) {
    throw new NetError("no_results", `the search found nothing for ${JSON.stringify(query)}`);
  }
  const what = html.trim() === ""
    ? "is empty"
    : results.length > 0
    ? `has ${results.length} results without a title link (.result__a)`
    : "has no results list (.result)";
  throw new NetError(
    "bad_response",
    `the search page from ${page.origin}${page.pathname} ${what}: the search engine may be asking for a challenge, or its layout changed (net.searchUrl)`,
  );
}

function isAd(result: Element): boolean {
  const classes = result.properties.className;
  return Array.isArray(classes) && classes.some((name) => String(name).startsWith("result--ad"));
}

function hitOf(result: Element, page: URL): SearchHit | null {
  const link = select(".result__a", result);
  const href = link?.properties.href;
  if (!link || typeof href !== "string") return null;
  const url = targetOf(href, page);
  const title = toText(link).trim();
  if (url === null || title === "") return null;
  const snippetElement = select(".result__snippet", result);
  const snippet = snippetElement ? toText(snippetElement).replace(/\s+/g, " ").trim() : "";
  return { title, url, snippet };
}

/** Where a result link leads: DuckDuckGo's `/l/?uddg=<target>` unwrapped. */
function targetOf(href: string, page: URL): string | null {
  let url: URL;
  try {
    url = new URL(href, page);
  } catch {
    return null;
  }
  const wrapped = url.pathname === "/l/" ? url.searchParams.get("uddg") : null;
  if (wrapped) {
    try {
      url = new URL(wrapped);
    } catch {
      return null;
    }
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}
