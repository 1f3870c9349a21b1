/**
 * web_search through the launch users run, against DuckDuckGo's HTML
 * results page served locally (`fixtures/web/ddg_results.html`, written
 * from the real page's structure): the top results' titles, URLs and
 * snippets; an empty or changed page, or no results, is an error.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { resultText } from "../../_mcp.ts";
import { fixtureSite, launchWeb } from "./_web.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

/** The first five organic results of the fixture, as they should come back. */
const EXPECTED = [
  {
    title: "asyncio — Asynchronous I/O — Python 3.13 documentation",
    url: "https://docs.python.org/3/library/asyncio.html",
    snippet:
      "asyncio is a library to write concurrent code using the async/await syntax. asyncio is used as a foundation for multiple Python asynchronous frameworks.",
  },
  {
    title: "Coroutines and Tasks — Python 3.13 documentation",
    url: "https://docs.python.org/3/library/asyncio-task.html",
    snippet:
      "This section outlines high-level asyncio APIs to work with coroutines and Tasks. Coroutines declared with the async/await syntax are the preferred way of writing asyncio applications.",
  },
  {
    title: "Python's asyncio: A Hands-On Walkthrough – Real Python",
    url: "https://realpython.com/async-io-python/",
    snippet:
      "In this tutorial, you'll learn how Python's asyncio works, how to define and run coroutines, and when to use asynchronous programming for better performance.",
  },
  {
    title: "asyncio · PyPI",
    url: "https://pypi.org/project/asyncio/",
    snippet:
      "This is a do-nothing package. asyncio has been part of the standard library since Python 3.4.",
  },
  {
    title: "How does asyncio actually work? - Stack Overflow",
    url: "https://stackoverflow.com/questions/49005651/how-does-asyncio-actually-work",
    snippet:
      "This question is motivated by my another question: How to await in cdef? There are tons of articles and blog posts on the web about asyncio, but they are all very superficial.",
  },
];

Deno.test("web_search reads DuckDuckGo's results page, and says when a page has none", async (t) => {
  await using root = await tempDir();
  await using site = fixtureSite();
  const allow = [`127.0.0.1:${site.port}`];
  await using web = await launchWeb(root.path, {
    net: { allow, searchUrl: site.url("/ddg/html/") },
  });
  const search = async (args: Record<string, unknown>) =>
    (await web.host.call("web_search", args)) as CallToolResult;

  await t.step("the top five: titles, URLs (unwrapped), snippets; the ad left out", async () => {
    const result = await search({ query: "python asyncio" });
    assert(!result.isError, resultText(result));
    assertEquals(result.structuredContent, { query: "python asyncio", results: EXPECTED });
    const text = resultText(result);
    assertStringIncludes(text, `1. ${EXPECTED[0]!.title}\n   ${EXPECTED[0]!.url}\n   `);
    assert(!text.includes("Sponsored"), text);
    assertEquals(site.requests.at(-1), "/ddg/html/?q=python+asyncio");
  });

  await t.step("limit", async () => {
    const more = await search({ query: "python asyncio", limit: 10 });
    const results = (more.structuredContent as { results: Array<{ url: string }> }).results;
    assertEquals(results.length, 6);
    assertEquals(results[5]!.url, "https://example.org/guide?lang=en&topic=asyncio");
    const one = await search({ query: "python asyncio", limit: 1 });
    assertEquals((one.structuredContent as { results: unknown[] }).results, [EXPECTED[0]]);
  });

  await t.step("no results is an error, not an empty list", async () => {
    const result = await search({ query: "nothing" });
    assert(result.isError);
    assertEquals(resultText(result), 'no_results: the search found nothing for "nothing"');
  });
});

Deno.test("web_search: an empty or changed results page is a clear error", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  for (
    const [path, what] of [["/ddg-empty/", "is empty"], [
      "/ddg-changed/",
      "has no results list \\(\\.result\\)",
    ]]
  ) {
    await using web = await launchWeb(root.path, {
      net: { allow: [`127.0.0.1:${site.port}`], searchUrl: site.url(path!) },
    });
    const result = (await web.host.call("web_search", { query: "python" })) as CallToolResult;
    assert(result.isError, path);
    assertMatch(resultText(result), new RegExp(`^bad_response: the search page from .* ${what}: `));
    assertStringIncludes(resultText(result), "layout changed (net.searchUrl)");
  }
});
