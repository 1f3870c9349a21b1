/**
 * fetch_url through the launch users run, against a fixture site on
 * loopback that the config (outside the root) unlocks: an article becomes
 * Markdown with its headings, links and code blocks; JSON comes
 * pretty-printed; the download, time and redirect limits hold; paging
 * gives back the whole document.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { resultText } from "../../_mcp.ts";
import { BIG_BYTES, fixtureSite, launchWeb, longText, rawServer } from "./_web.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

/** The text and data of a result. */
function parts(result: unknown): { text: string; page: string; data: Record<string, unknown> } {
  const reply = result as CallToolResult;
  const blocks = reply.content as Array<{ type: string; text: string }>;
  return {
    text: resultText(reply),
    page: blocks[0]?.text ?? "",
    data: (reply.structuredContent ?? {}) as Record<string, unknown>,
  };
}

Deno.test("fetch_url: pages, formats and limits, in the launch users run", async (t) => {
  await using root = await tempDir();
  await using site = fixtureSite();
  await using web = await launchWeb(root.path, {
    net: {
      allow: [`127.0.0.1:${site.port}`],
      maxBytes: 5 * 1024 * 1024,
      maxRedirects: 3,
    },
  });
  const { host } = web;

  await t.step("both tools are listed, open-world and read-only", () => {
    for (const name of ["fetch_url", "web_search"]) {
      const tool = host.list().find((each) => each.name === name);
      assertEquals(tool?.annotations?.openWorldHint, true, name);
      assertEquals(tool?.annotations?.readOnlyHint, true, name);
    }
  });

  await t.step("an article becomes Markdown: headings, links, code blocks", async () => {
    const result = await host.call("fetch_url", { url: site.url("/article.html") });
    const { page, text, data } = parts(result);
    assert(!result.isError, text);
    assertStringIncludes(page, "# Structured concurrency with `TaskGroup`\n");
    assertStringIncludes(page, "## Before: `gather`\n");
    assertStringIncludes(page, "### What changes\n");
    assertStringIncludes(
      page,
      "[`asyncio.TaskGroup`](https://docs.python.org/3/library/asyncio-task.html#task-groups)",
    );
    // Relative links are made absolute against the page.
    assertStringIncludes(page, `[crawler](${site.url("/blog/crawler/")})`);
    assertStringIncludes(
      page,
      "```python\nasync def fetch_all(urls):\n    async with asyncio.TaskGroup() as group:\n",
    );
    assertStringIncludes(page, "```\npython -X dev crawl.py --workers 8\n```");
    assertStringIncludes(page, "| TaskGroup | yes              |");
    // Navigation, scripts, hidden elements and forms are not reading matter.
    for (const gone of ["Careers", "tracking pixel", "analytics", "newsletter", "Subscribe"]) {
      assert(!page.includes(gone), `${gone} should be dropped:\n${page}`);
    }
    assertEquals(data.title, "Structured concurrency with TaskGroup | Example Engineering Blog");
    assertEquals(data.format, "markdown");
    assertEquals(data.content_type, "text/html");
    assertEquals(data.truncated, false);
    const requests = data.requests as Array<{ address: string; status: number }>;
    assertEquals(requests.map((request) => [request.address, request.status]), [[
      "127.0.0.1",
      200,
    ]]);
  });

  await t.step("format text gives the article's text without markup", async () => {
    const { page } = parts(
      await host.call("fetch_url", { url: site.url("/article.html"), format: "text" }),
    );
    assertStringIncludes(page, "Structured concurrency with TaskGroup\n");
    assert(!page.includes("```") && !page.includes("<code"), page);
  });

  await t.step("JSON comes pretty-printed", async () => {
    const { page, data } = parts(await host.call("fetch_url", { url: site.url("/data.json") }));
    assertEquals(
      page,
      JSON.stringify({ name: "toolhost", tags: ["mcp", "deno"], nested: { ok: true } }, null, 2),
    );
    assertEquals(data.format, "json");
  });

  await t.step("a gzip body is decoded", async () => {
    const { page } = parts(await host.call("fetch_url", { url: site.url("/gzip.html") }));
    assertEquals(page, "# Compressed\n\nIt was gzip.\n");
  });

  await t.step("binary content is refused with its type and size", async () => {
    const result = await host.call("fetch_url", { url: site.url("/image.png") });
    assert(result.isError);
    assertMatch(parts(result).text, /^unsupported: .*image\/png \(4,096 bytes\)/);
  });

  await t.step("a 50 MB response stops at the download limit", async () => {
    const result = await host.call("fetch_url", { url: site.url("/big") });
    assert(result.isError);
    assertMatch(parts(result).text, /^too_large: .*5,242,880 bytes \(net\.maxBytes/);
    // The client stopped reading: the server never handed over the whole 50 MB.
    assert(site.bigSent.bytes < BIG_BYTES, `the server sent ${site.bigSent.bytes} bytes`);
  });

  await t.step("a gzip bomb stops at the limit, counted decompressed", async () => {
    const result = await host.call("fetch_url", { url: site.url("/bomb") });
    assert(result.isError);
    assertMatch(parts(result).text, /^too_large: .*5,242,880 bytes \(net\.maxBytes/);
  });

  await t.step("malformed responses are errors, not pages", async () => {
    await using raw = rawServer({
      "/length":
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5, 11\r\n\r\nhello",
      "/negative": "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nhello",
      "/chunk": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5zz\r\nhello\r\n0\r\n\r\n",
      "/coding": "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nhello",
      "/head": "HTTP/1.1 200 OK\r\nX-Filler: " + "a".repeat(70_000) + "\r\n\r\nhello",
    });
    await using web = await launchWeb(root.path, { net: { allow: [`127.0.0.1:${raw.port}`] } });
    for (const path of ["/length", "/negative", "/chunk", "/coding", "/head"]) {
      const result = await web.host.call("fetch_url", { url: raw.url(path) });
      assert(result.isError, path);
      assertMatch(parts(result).text, /^net_error: /, path);
    }
  });

  await t.step("redirects are followed up to the limit, and refused past it", async () => {
    const within = await host.call("fetch_url", { url: site.url("/hop/3") });
    assert(!within.isError, parts(within).text);
    assertEquals(parts(within).data.redirects, [
      site.url("/hop/2"),
      site.url("/hop/1"),
      site.url("/hop/0"),
    ]);
    const before = site.requests.filter((path) => path === "/hop/0").length;
    const over = await host.call("fetch_url", { url: site.url("/hop/5") });
    assert(over.isError);
    assertMatch(
      parts(over).text,
      /^too_many_redirects: .* more than 3 times \(net\.maxRedirects\)/,
    );
    assertEquals(site.requests.filter((path) => path === "/hop/0").length, before, "never reached");
  });

  await t.step("paging reassembles the document", async () => {
    const whole = longText();
    let offset = 0;
    let assembled = "";
    let calls = 0;
    for (;;) {
      const result = await host.call("fetch_url", {
        url: site.url("/long.txt"),
        limit: 7000,
        offset,
      });
      const { page, text, data } = parts(result);
      assert(!result.isError, text);
      assembled += page;
      calls++;
      if (data.next_offset === undefined) {
        assertStringIncludes(text, "end of page");
        break;
      }
      assertStringIncludes(text, `offset=${data.next_offset}, limit=7000) for more]`);
      offset = data.next_offset as number;
    }
    assertEquals(assembled, whole);
    assert(calls >= 9, `${calls} pages`);
    // The document was fetched once: the other pages came from the host's copy.
    assertEquals(site.requests.filter((path) => path === "/long.txt").length, 1);
  });

  await t.step("bad URLs are refused before any request", async () => {
    for (
      const url of [
        "file:///etc/passwd",
        "ftp://example.com/",
        "not a url",
        `http://user:pw@127.0.0.1:${site.port}/`,
      ]
    ) {
      const result = await host.call("fetch_url", { url });
      assert(result.isError, url);
      assertMatch(parts(result).text, /^invalid_argument: /, url);
    }
  });
});

Deno.test("fetch_url: a server that never answers hits the time limit", async () => {
  await using root = await tempDir();
  await using site = fixtureSite();
  await using web = await launchWeb(root.path, {
    net: { allow: [`127.0.0.1:${site.port}`], timeoutS: 2 },
  });
  const result = await web.host.call("fetch_url", { url: site.url("/slow") });
  assert(result.isError);
  assertMatch(parts(result).text, /^net_timeout: no whole answer within 2 s \(net\.timeoutS\)/);
});

Deno.test("net: false removes both tools", async () => {
  await using root = await tempDir();
  await using web = await launchWeb(root.path, { net: false });
  const names = web.host.list().map((tool) => tool.name);
  assert(!names.includes("fetch_url") && !names.includes("web_search"), names.join(", "));
  assertStringIncludes(
    web.host.session.stderr(),
    "fetch_url and web_search not listed: switched off (net: false)",
  );
});
