/**
 * The dashboard in a real browser (Debian's headless Chromium, driven by
 * puppeteer-core) shows hostile text escaped: a client named with ESC, BEL
 * and a bidi override, and calls whose arguments hold C1 and bidi
 * controls, appear in the live calls, the sessions and an approval card
 * with every such character escaped, as the CLI shows them.
 *
 * @module
 */

import puppeteer, { type Page } from "puppeteer-core";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { resultText } from "../../_mcp.ts";
import { legacyClient } from "../transports/_http.ts";
import { launchWithHooks } from "./_hooks.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

const CHROMIUM = "/usr/bin/chromium";

/** A client name a terminal or a reader would be fooled by. */
const CLIENT = "agent\x1b]0;x\x07\u202e";

/** Every text the page shows (cells, cards, titles, options), as page-side code. */
const SHOWN_TEXT = `[document.body.innerText,
  ...[...document.querySelectorAll("[title]")].map((el) => el.title),
  ...[...document.querySelectorAll("option")].map((el) => el.text)].join("\\n")`;

/** Wait until a page-side expression holds. */
async function until(page: Page, expression: string): Promise<void> {
  await page.waitForFunction(expression, { timeout: 60_000 });
}

Deno.test({
  name: "dashboard: control and bidi characters in clients' names and arguments are shown escaped",
  // CI installs chromium (.ci/run); elsewhere the test says it did not run.
  ignore: !canRun("chromium"),
  async fn() {
    await using root = await tempDir();
    await using host = await launchWithHooks(root.path, {
      approvals: [{ tools: ["write_file"] }],
    });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--headless=new"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${host.hooksUrl}#token=${encodeURIComponent(host.token)}`);
      await until(page, `document.getElementById("state").textContent === "live"`);
      const mcp = await legacyClient(host.http, CLIENT);
      await mcp.callTool({ name: "read_file", arguments: { path: "n\u202eo\u009b.txt" } });
      const waiting = mcp.callTool({
        name: "write_file",
        arguments: { path: "w\u202ex\u009b.txt", content: "\x1b[2J\n" },
      });
      await page.waitForSelector(".approval button.approve", { timeout: 60_000 });
      // The card: the client's name in its title, the arguments as JSON with JSON's escapes.
      const title = await page.$eval(".approval h3", (h3) => h3.textContent ?? "");
      assertStringIncludes(title, String.raw`(agent\e]0;x\a\u{202E}/1.0.0)`);
      const args = await page.$eval(".approval pre", (pre) => pre.textContent ?? "");
      assertStringIncludes(args, String.raw`"path": "w\u202ex\u009b.txt"`);
      assertStringIncludes(args, String.raw`"content": "\u001b[2J\n"`);
      await page.click(".approval button.approve");
      const result = await waiting;
      assert(!result.isError, resultText(result as CallToolResult));
      // The live calls' arguments and the sessions' client (refreshed every 5 s).
      await until(
        page,
        `[...document.querySelectorAll("#calls tbody tr")].some((row) =>
            row.cells[1].textContent === "write_file" && row.cells[4].textContent === "ok") &&
          document.querySelectorAll("#sessions tbody tr").length === 1`,
      );
      const read = await page.evaluate(`[...document.querySelectorAll("#calls tbody tr")]
        .find((row) => row.cells[1].textContent === "read_file").cells[3].textContent`);
      assertEquals(read, String.raw`{"path":"n\u202eo\u009b.txt"}`);
      const client = await page.evaluate(
        `document.querySelector("#sessions tbody tr").cells[1].textContent`,
      );
      assertStringIncludes(String(client), String.raw`agent\e]0;x\a\u{202E}`);
      // Nowhere on the page a raw control (but the layout's own line feeds and tabs) or bidi mark.
      const shown = String(await page.evaluate(SHOWN_TEXT));
      assert(!/[^\P{Cc}\n\t]|\p{Bidi_Control}/u.test(shown), JSON.stringify(shown));
      await mcp.close();
    } finally {
      await browser.close();
    }
  },
});
