/**
 * `web_search` (seed 001's): the top results of a web search — DuckDuckGo's
 * HTML results page by default (`net.searchUrl`) — each with its title, URL
 * and snippet. A page without results is an error that says why, never an
 * empty list.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, structured } from "../tool.ts";
import { networkOf } from "../network.ts";

/** Search the web. */
export const webSearch = defineTool({
  name: "web_search",
  description: "Search the web (DuckDuckGo): the top results' titles, URLs and snippets.",
  input: z.object({
    query: z.string().trim().min(1).max(500),
    limit: z.number().int().min(1).max(20).optional().describe("Results (default 5)"),
  }),
  output: z.object({
    query: z.string(),
    results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
  }),
  annotations: { title: "Web search", readOnlyHint: true, openWorldHint: true },
  async run({ query, limit = 5 }, ctx) {
    const hits = await networkOf(ctx).search({
      query,
      maxResults: limit,
      signal: ctx.signal,
    });
    const lines = hits.map((hit, i) =>
      `${i + 1}. ${hit.title}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ""}`
    );
    return structured(lines.join("\n\n"), {
      query,
      results: hits.map((hit) => ({ ...hit })),
    });
  },
});
