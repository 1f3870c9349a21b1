/**
 * A hostile search never holds up the host (issue 10): through the launch
 * users run (`mcp-config`'s command, a real MCP client over stdio), a grep
 * whose pattern backtracks catastrophically in JavaScript answers, and a
 * read_file sent while it runs is answered first, by the other worker.
 *
 * The host starts its second worker only when a call would wait behind the
 * first, so each launch is first brought to two ready workers: a grep and a
 * read are sent together until the read is answered first (while the second
 * worker loads, the read may still go to the first one once grep is done).
 */

import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { canRun, tempDir, textOf } from "../_helpers.ts";
import { type LaunchedHost, launchHost } from "../_mcp.ts";

/** Files of the crafted tree, each about 1.5 MB. */
const FILES = 48;

/**
 * A file whose first line matches the patterns below (so that ripgrep, too,
 * proposes it) and whose other lines make a backtracking engine try about
 * 2^1000 ways to fail each.
 */
const CRAFTED = `${"a".repeat(30)}\n${`${"a".repeat(1000)}!\n`.repeat(1500)}`;

const PATTERNS = ["(a+)+$", "(a|aa)+$", "(.*a){20}$"];

/** Rounds of a grep and a read sent together, at most, before the host has two ready workers. */
const WARM_ROUNDS = 20;

/** Send a slow grep and a read together until the read is answered first: the second worker is up. */
async function bothWorkersUp(host: LaunchedHost): Promise<void> {
  for (let round = 0; round < WARM_ROUNDS; round++) {
    let grepDone = false;
    const grep = host.call("grep", { pattern: PATTERNS[0] }).finally(() => (grepDone = true));
    await host.call("read_file", { path: "small.txt" });
    const readFirst = !grepDone;
    await grep;
    if (readFirst) return;
  }
  throw new Error(`no read was answered before a grep in ${WARM_ROUNDS} rounds: one worker only?`);
}

Deno.test("a catastrophic grep answers, and a read_file sent meanwhile answers before it", async (t) => {
  await using root = await tempDir();
  for (let i = 0; i < FILES; i++) {
    await Deno.writeTextFile(`${root.path}/f${String(i).padStart(2, "0")}.txt`, CRAFTED);
  }
  await Deno.writeTextFile(`${root.path}/small.txt`, "hello\n");
  for (const ripgrep of ["off", ...(canRun("rg") ? ["auto"] : [])]) {
    await t.step(`ripgrep ${ripgrep}`, async () => {
      await using host = await launchHost({ roots: [root.path], ripgrep });
      await bothWorkersUp(host);
      for (const pattern of PATTERNS) {
        const order: string[] = [];
        const began = performance.now();
        const grep = host.call("grep", { pattern }).finally(() => order.push("grep"));
        const read = await host.call("read_file", { path: "small.txt" });
        const readMs = performance.now() - began;
        order.push("read");
        const searched = await grep;
        const grepMs = performance.now() - began;
        assertEquals(textOf(read), "hello\n");
        assertEquals(order, ["read", "grep"], `${ripgrep} ${pattern}: the read waited for grep`);
        assertEquals(searched.isError, undefined, textOf(searched));
        const data = searched.structuredContent as {
          matches: Array<{ path: string; line: number }>;
          engine: string;
        };
        assertEquals(data.engine, ripgrep === "off" ? "walker" : "ripgrep");
        assertEquals(data.matches.length, FILES, `${ripgrep} ${pattern}`);
        assert(data.matches.every((match) => match.line === 1));
        assertMatch(textOf(searched), /^f00\.txt:1: a{30}\n/);
        // deno-lint-ignore no-console
        console.log(
          `ripgrep ${ripgrep}, grep ${JSON.stringify(pattern)} over ${FILES} files: read_file ` +
            `answered in ${readMs.toFixed(0)} ms, grep in ${grepMs.toFixed(0)} ms`,
        );
      }
    });
  }
});
