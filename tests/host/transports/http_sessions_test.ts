/**
 * What one HTTP client may not do to another, and what a project may not
 * do to the server, black-box (the host started as a user starts it): an
 * `Mcp-Session-Id` is never shown to tools, a cancelled call does not keep
 * its session open, a token shipped in a cloned repository is never used,
 * and the conformance fixtures serve no project tool.
 */

import type { CallToolResult } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { launchHttp, resultText } from "../../_mcp.ts";
import { waitUntil } from "../../security/_shell.ts";
import { INITIALIZE, legacyClient, logLines, post, projectWith } from "./_http.ts";

Deno.test("http sessions: the log, read_interactions and stderr never show a client's Mcp-Session-Id", async () => {
  await using root = await projectWith({ "a.txt": "x\n" });
  await using host = await launchHttp([root.path]);
  const [a, b] = [await legacyClient(host, "a"), await legacyClient(host, "b")];
  try {
    await b.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    const seen = resultText(
      await a.callTool({ name: "read_interactions", arguments: {} }) as CallToolResult,
    );
    // deno-lint-ignore no-explicit-any
    const ids = [a, b].map((client) => (client as any)._transport.sessionId as string);
    assert(ids.every((id) => /^[0-9a-f-]{36}$/.test(id)), ids.join(", "));
    for (const id of ids) {
      assertFalse(seen.includes(id), "read_interactions shows an Mcp-Session-Id");
      assertFalse(host.stderr().includes(id), "stderr shows an Mcp-Session-Id");
    }
    await host.stop();
    const sessions = new Set((await logLines(root.path)).map((line) => line.session));
    assert(sessions.size >= 2, [...sessions].join(", "));
    for (const id of ids) assertFalse(sessions.has(id), "the log names an Mcp-Session-Id");
  } finally {
    await a.close().catch(() => {});
    await b.close().catch(() => {});
  }
});

Deno.test({
  name:
    "http sessions: a call the client cancelled does not keep its session from closing when idle",
  ignore: !canRun("bwrap"),
}, async () => {
  await using root = await tempDir();
  await using host = await launchHttp([root.path], { file: { http: { idleTimeoutS: 1 } } });
  const opened = await post(host, INITIALIZE("2025-11-25"), host.headers);
  const session = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  const headers = {
    ...host.headers,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  const call = await post(host, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "run_shell", arguments: { command: "sleep 120", timeout_s: 300 } },
  }, headers);
  const cancel = await post(host, {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 2, reason: "changed my mind" },
  }, headers);
  await cancel.body?.cancel();
  await waitUntil(
    () => Promise.resolve(/HTTP session \S+ closed: idle/.test(host.stderr())),
    "the session with the cancelled call to be closed when idle",
  );
  await call.body?.cancel();
  const after = await post(host, { jsonrpc: "2.0", id: 3, method: "ping" }, headers);
  assertEquals(after.status, 404);
  await after.body?.cancel();
});

Deno.test("http sessions: a token shipped in a cloned repository's .toolhost is set aside, never used", async () => {
  await using root = await tempDir();
  const shipped = "shipped-by-the-repository-author-0123456789abcdef";
  await Deno.mkdir(`${root.path}/.toolhost`);
  await Deno.writeTextFile(`${root.path}/.toolhost/http-token`, `${shipped}\n`, { mode: 0o600 });
  await using host = await launchHttp([root.path]);
  assert(host.token !== shipped, "the shipped token is the server's");
  const withShipped = await post(host, INITIALIZE("2025-11-25"), {
    Authorization: `Bearer ${shipped}`,
  });
  assertEquals(withShipped.status, 401);
  await withShipped.body?.cancel();
  const withOwn = await post(host, INITIALIZE("2025-11-25"), host.headers);
  assertEquals(withOwn.status, 200);
  await withOwn.body?.cancel();
  assertMatch(host.stderr(), /set aside|untrusted/i);
});

Deno.test("http sessions: the conformance fixtures serve the suite's tools only, no project tool", async () => {
  await using root = await projectWith({ "a.txt": "secret\n" });
  await using host = await launchHttp([root.path], { conformanceFixtures: true });
  assertMatch(host.stderr(), /WARNING: --conformance-fixtures: .*WITHOUT a token/);
  const client = await legacyClient(host, "fixtures");
  try {
    const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    const fixture = (name: string) =>
      name.startsWith("test_") || name === "json_schema_2020_12_tool";
    assert(names.length > 0 && names.every(fixture), names.join());
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } })
      .then(
        (result: unknown) => resultText(result as CallToolResult),
        (error: Error) => error.message,
      );
    assertMatch(read, /Unknown tool "read_file"/);
  } finally {
    await client.close();
  }
});
