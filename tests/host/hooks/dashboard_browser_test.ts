/**
 * The dashboard in a real browser (Debian's headless Chromium, driven by
 * puppeteer-core): the login form names the token it takes (`hooks-token`:
 * the MCP clients' `http-token` is refused), a pending approval appears,
 * Approve is clicked, and the MCP call that waited completes with what it
 * asked to write. Screenshots are kept in `test-artifacts/`.
 *
 * @module
 */

import puppeteer, { type Browser } from "puppeteer-core";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { exists } from "../../security/_shell.ts";
import { resultText } from "../../_mcp.ts";
import { legacyClient } from "../transports/_http.ts";
import { type HooksHost, launchWithHooks } from "./_hooks.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

const CHROMIUM = "/usr/bin/chromium";

/** Where the screenshots go (the repository's `test-artifacts/`, not committed). */
const ARTIFACTS = new URL("../../../test-artifacts/", import.meta.url).pathname;

/**
 * Open the dashboard without the token: the login form says which token it takes; the MCP
 * clients' token is refused, the Hook API's opens it.
 */
async function signIn(browser: Browser, host: HooksHost): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(host.hooksUrl);
    await page.waitForSelector("#login:not([hidden])", { timeout: 60_000 });
    const form = await page.$eval("#login", (login) => login.textContent ?? "");
    assertStringIncludes(form, "hooks-token");
    assertStringIncludes(form, "not http-token");
    const submit = async (token: string) => {
      await page.type("#token", token);
      await Promise.all([page.waitForNavigation(), page.click("#login button[type=submit]")]);
    };
    await submit(host.http.token!);
    await page.waitForFunction(
      `document.getElementById("state").textContent === "the token was refused"`,
      { timeout: 60_000 },
    );
    await submit(host.token);
    await page.waitForFunction(`document.getElementById("state").textContent === "live"`, {
      timeout: 60_000,
    });
  } finally {
    await page.close();
  }
}

Deno.test({
  name:
    "dashboard: the login form takes hooks-token; a pending approval shows, Approve lets the waiting call run",
  // CI installs chromium (.ci/run); elsewhere the test says it did not run.
  ignore: !canRun("chromium"),
  async fn() {
    await using root = await tempDir();
    await using host = await launchWithHooks(root.path, {
      approvals: [{ tools: ["write_file"] }],
    });
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--headless=new", "--window-size=1280,1000"],
    });
    try {
      await signIn(browser, host);
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 1000 });
      await page.goto(`${host.hooksUrl}#token=${encodeURIComponent(host.token)}`);
      // Page-side code as text: these tests are type-checked without the DOM's types.
      await page.waitForFunction(`document.getElementById("state").textContent === "live"`, {
        timeout: 60_000,
      });
      // The token left the address bar once read.
      assertEquals(new URL(page.url()).hash, "");
      const mcp = await legacyClient(host.http, "browser");
      await Deno.writeTextFile(`${root.path}/notes.md`, "# notes\n");
      await mcp.callTool({ name: "read_file", arguments: { path: "notes.md" } });
      const waiting = mcp.callTool({
        name: "write_file",
        arguments: { path: "approved.txt", content: "written after a click\n" },
      });
      await page.waitForSelector(".approval button.approve", { timeout: 60_000 });
      const shown = await page.$eval(".approval pre", (pre) => pre.textContent ?? "");
      assertStringIncludes(shown, "written after a click");
      // The waiting call's row says it waits for approval, not that it runs.
      await page.waitForFunction(
        `[...document.querySelectorAll("#calls tbody tr")].some((row) =>
          row.cells[1].textContent === "write_file" &&
          row.cells[4].textContent === "waiting for approval")`,
        { timeout: 60_000 },
      );
      await page.screenshot({ path: `${ARTIFACTS}dashboard-pending.png`, fullPage: true });
      assertEquals(await exists(`${root.path}/approved.txt`), false);
      await page.click(".approval button.approve");
      const result = await waiting;
      assert(!result.isError, resultText(result as CallToolResult));
      assertEquals(await Deno.readTextFile(`${root.path}/approved.txt`), "written after a click\n");
      await page.waitForFunction(
        `document.querySelectorAll(".approval").length === 0 &&
          [...document.querySelectorAll("#calls tbody tr")].some((row) =>
            row.textContent.includes("write_file") && row.cells[4].textContent === "ok")`,
        { timeout: 60_000 },
      );
      // The statistics and the sessions follow (the plot, the tools' table).
      await page.waitForFunction(
        `[...document.querySelectorAll("#tools tbody tr")].some((row) =>
            row.cells[0].textContent === "write_file" && row.cells[1].textContent === "1") &&
          document.querySelectorAll("#sessions tbody tr").length === 1 &&
          document.querySelectorAll("#plot circle").length > 0`,
        { timeout: 60_000 },
      );
      await page.screenshot({ path: `${ARTIFACTS}dashboard-after.png`, fullPage: true });
      await mcp.close();
      await host.http.stop();
      const audit = JSON.parse(
        (await Deno.readTextFile(`${root.path}/.toolhost/approvals.jsonl`)).trim(),
      );
      assertEquals([audit.decision, audit.via], ["approved", "dashboard"]);
    } finally {
      await browser.close();
    }
  },
});
