/**
 * Rights per client, black-box: the host started as a user starts it
 * (`toolhost start --http`, scoped flags, Landlock), tokens minted with
 * `toolhost token add` as a user mints them, and the SDK's client with each
 * token. A read-only client lists and calls no writing tool; a client
 * limited to root A reaches nothing of root B by any tool; a revoked token's
 * next request is refused in a live session; a client over its calls a
 * minute is told so while the others are served; every refusal is logged
 * with the client's name.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { launchHttp, resultText } from "../../_mcp.ts";
import { logLines, modernClient } from "../transports/_http.ts";
import { clientWith, mint, token } from "./_clients.ts";

const SECRET = "secret-of-root-b-1f6c";

/** Two roots (B holds the secret; A a link to it) and the user's config directory. */
async function fixture() {
  const base = await tempDir("toolhost-clients-");
  const a = `${base.path}/a`;
  const b = `${base.path}/b`;
  await Deno.mkdir(a);
  await Deno.mkdir(b);
  await Deno.writeTextFile(`${a}/notes.txt`, "in a\n");
  await Deno.writeTextFile(`${b}/secret.txt`, `${SECRET}\n`);
  await Deno.symlink(`${b}/secret.txt`, `${a}/link.txt`);
  await Deno.symlink(b, `${a}/b-dir`);
  const config = `${base.path}/config`;
  await Deno.mkdir(config);
  return { base, a, b, config };
}

/** A call's result as text (structured content too), for searching what leaked. */
function everything(result: CallToolResult): string {
  return `${resultText(result)}\n${JSON.stringify(result.structuredContent ?? {})}`;
}

Deno.test("clients: rights per token, in the launch users run", async (t) => {
  const { base, a, b, config } = await fixture();
  await using _base = base;
  await using host = await launchHttp([a, b], { env: { XDG_CONFIG_HOME: config } });
  const roots = [a, b];

  await t.step("a read-only token lists no writing tool and cannot write", async () => {
    const reviewer = await clientWith(
      host,
      await mint(config, host, roots, "reviewer", ["--read-only"]),
      "rev",
    );
    try {
      const { tools } = await reviewer.listTools();
      assert(tools.some((tool: Tool) => tool.name === "read_file"));
      const writers = tools.filter((tool: Tool) => tool.annotations?.readOnlyHint !== true);
      assertEquals(writers.map((tool: Tool) => tool.name), []);
      const wrote = await reviewer.callTool({
        name: "write_file",
        arguments: { path: "new.txt", content: "x" },
      }) as CallToolResult;
      assert(wrote.isError);
      assertMatch(resultText(wrote), /^not_permitted: client "reviewer" may not call write_file/);
      await assertRejects(() => Deno.stat(`${a}/new.txt`), Deno.errors.NotFound);
    } finally {
      await reviewer.close();
    }
  });

  await t.step("a 2026-07-28 client with a read-only token is held to it as well", async () => {
    const bearer = await mint(config, host, roots, "modern-reviewer", ["--read-only"]);
    const client = await modernClient({ ...host, headers: { Authorization: `Bearer ${bearer}` } });
    try {
      const { tools } = await client.listTools();
      assert(tools.length > 0 && tools.every((tool) => tool.annotations?.readOnlyHint === true));
      const wrote = await client.callTool({
        name: "write_file",
        arguments: { path: "modern.txt", content: "x" },
      });
      assertMatch(JSON.stringify(wrote.content), /not_permitted: client \\"modern-reviewer\\"/);
      await assertRejects(() => Deno.stat(`${a}/modern.txt`), Deno.errors.NotFound);
    } finally {
      await client.close();
    }
  });

  await t.step("a token limited to root A reaches nothing of root B", async () => {
    const ci = await clientWith(
      host,
      await mint(config, host, roots, "ci", [`--roots=${a}`]),
      "ci",
    );
    try {
      const attempts: Array<[string, Record<string, unknown>]> = [
        ["read_file", { path: `${b}/secret.txt` }],
        ["read_file", { path: "../b/secret.txt" }],
        ["read_file", { path: "link.txt" }],
        ["read_file", { path: "b-dir/secret.txt" }],
        ["list_directory", { path: b }],
        ["get_tree", { path: b }],
        // A pattern that matches the secret without spelling it (a reply may echo its pattern).
        ["grep", { pattern: "of-root-b-[0-9a-f]+", path: b }],
        ["grep", { pattern: "of-root-b-[0-9a-f]+" }],
        ["search_files", { pattern: "secret*" }],
        ["get_file_info", { path: `${b}/secret.txt` }],
      ];
      for (const [name, args] of attempts) {
        const result = await ci.callTool({ name, arguments: args }) as CallToolResult;
        assert(!everything(result).includes(SECRET), `${name} ${JSON.stringify(args)} leaked B`);
        assert(
          !everything(result).includes("secret.txt") || result.isError,
          `${name} named B's file`,
        );
      }
      const own = await ci.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
      assertEquals(resultText(own as CallToolResult).includes("in a"), true);
      const { tools } = await ci.listTools();
      assert(
        !tools.some((tool: Tool) => tool.name === "read_interactions"),
        "the log of every client",
      );
      if (canRun("bwrap")) {
        const shell = await ci.callTool({
          name: "run_shell",
          arguments: { command: `cat ${b}/secret.txt ${a}/link.txt; ls ${b}; pwd` },
        }) as CallToolResult;
        assert(!everything(shell).includes(SECRET), "the shell read B");
        assertMatch(resultText(shell), new RegExp(a));
      }
    } finally {
      await ci.close();
    }
  });

  await t.step("a revoked token's next request is refused, in its live session", async () => {
    const gone = await clientWith(host, await mint(config, host, roots, "gone"), "gone");
    try {
      await gone.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
      const revoked = await token(config, roots, ["revoke", "gone"]);
      assertEquals(revoked.code, 0, revoked.err);
      const refused = await assertRejects(() =>
        gone.callTool({ name: "read_file", arguments: { path: "notes.txt" } })
      );
      assertMatch(String(refused), /401|Unauthorized/);
    } finally {
      await gone.close().catch(() => {});
    }
    const listed = await token(config, roots, ["list"]);
    assert(!listed.out.includes("gone") && listed.out.includes("reviewer"), listed.out);
  });

  await t.step("the 61st call in a minute is refused, and other clients are served", async () => {
    const busy = await clientWith(
      host,
      await mint(config, host, roots, "busy", ["--calls-per-minute=60"]),
      "busy",
    );
    const other = await clientWith(host, host.token!, "other");
    try {
      for (let i = 0; i < 60; i++) {
        const result = await busy.callTool({
          name: "get_file_info",
          arguments: { path: "notes.txt" },
        });
        assert(!(result as CallToolResult).isError, `call ${i + 1}`);
      }
      const over = await busy.callTool({ name: "get_file_info", arguments: { path: "notes.txt" } });
      assertMatch(resultText(over as CallToolResult), /^rate_limited: client "busy" made 60 calls/);
      const served = await other.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
      assert(!(served as CallToolResult).isError);
    } finally {
      await busy.close();
      await other.close();
    }
  });

  await t.step("every call is logged with its client's name, refusals too", async () => {
    await host.stop();
    const lines = await logLines(a);
    const refusal = lines.find((line) => line.tool === "write_file");
    assertEquals(refusal?.client, "reviewer");
    assert(lines.some((line) => line.client === "ci" && line.tool === "read_file"));
    assert(lines.some((line) => line.client === "busy"));
  });
});

Deno.test("clients: a token cannot be minted from inside a root, nor with a root outside", async () => {
  const { base, a, b, config } = await fixture();
  await using _base = base;
  const outside = await token(config, [a], ["add", "x", "--http=127.0.0.1:8765", `--roots=${b}`]);
  assertEquals(outside.code, 2);
  assertMatch(outside.err, /is not inside the server's roots/);
  // The list is kept outside every root: a tool could change one inside (the server ignores it).
  await Deno.mkdir(`${a}/cfg`);
  const inRoot = await token(`${a}/cfg`, [a], ["add", "x", "--http=127.0.0.1:8765"]);
  assertEquals(inRoot.code, 2);
  assertMatch(inRoot.err, /would lie inside a root/);
});

Deno.test("clients: with the resolver's check for a scope switched off (a test-only fault), the kernel still refuses root B", async () => {
  const { base, a, b, config } = await fixture();
  await using _base = base;
  await using host = await launchHttp([a, b], {
    env: { XDG_CONFIG_HOME: config },
    fault: new URL("../../_faults/wide_resolver.ts", import.meta.url),
  });
  const ci = await clientWith(host, await mint(config, host, [a, b], "ci", [`--roots=${a}`]), "ci");
  try {
    // The fault holds: the scope's resolver takes B's path for one of its roots...
    const read = await ci.callTool({ name: "read_file", arguments: { path: `${b}/secret.txt` } });
    const text = everything(read as CallToolResult);
    assert((read as CallToolResult).isError, text);
    assert(!text.includes(SECRET), "B was read");
    // ...and the kernel (Landlock) refuses: not the resolver's path_denied, the system's EACCES.
    assert(!/outside the allowed roots/.test(text), `the resolver still refused: ${text}`);
    assertMatch(text, /ermission denied|os error 13|EACCES/);
    const listed = await ci.callTool({ name: "list_directory", arguments: { path: b } });
    assert(!everything(listed as CallToolResult).includes("secret.txt"), "B was listed");
    // Root A is served as before.
    const own = await ci.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    assertMatch(resultText(own as CallToolResult), /in a/);
  } finally {
    await ci.close();
  }
});
