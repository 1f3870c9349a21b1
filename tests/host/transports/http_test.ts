/**
 * The host over Streamable HTTP, black-box: started as a user starts it
 * (`toolhost start --http`, scoped flags, Landlock), reached with the SDK's
 * v2 client — unpinned (2025-11-25) and pinned to
 * 2026-07-28 — and with raw requests for the guard. The tests on the
 * default launch share one host, each step's files in a folder of its own;
 * the idle-timeout test (another config) and the SIGTERM test (it stops
 * the server) keep their own.
 */

import type { CallToolResult } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { type HttpHost, launchHttp, resultText } from "../../_mcp.ts";
import { commandWrote, waitUntil } from "../../security/_shell.ts";
import { INITIALIZE, legacyClient, logLines, modernClient, post } from "./_http.ts";

/** The status of an initialize sent over a bare TCP connection with a chosen Host header. */
async function rawStatus(host: HttpHost, hostHeader: string): Promise<number> {
  const { hostname, port } = new URL(host.url);
  const body = JSON.stringify(INITIALIZE("2025-11-25"));
  const request = [
    "POST /mcp HTTP/1.1",
    `Host: ${hostHeader}`,
    `Authorization: ${host.headers.Authorization}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${new TextEncoder().encode(body).length}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(256);
    const read = await conn.read(buffer);
    const status = /^HTTP\/1\.1 (\d{3})/.exec(
      new TextDecoder().decode(buffer.subarray(0, read ?? 0)),
    );
    if (!status) throw new Error("No HTTP status line");
    return Number(status[1]);
  } finally {
    conn.close();
  }
}

Deno.test("http: sessions have unguessable ids, are 404 after DELETE, and are closed when idle", async () => {
  await using root = await tempDir();
  await using host = await launchHttp([root.path], { file: { http: { idleTimeoutS: 1 } } });
  const opened = await post(host, INITIALIZE("2025-11-25"), host.headers);
  const id = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  assertMatch(id, /^[0-9a-f-]{36}$/);
  const headers = { ...host.headers, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  const gone = await fetch(host.url, { method: "DELETE", headers });
  assertEquals(gone.status, 200);
  await gone.body?.cancel();
  const after = await post(host, { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers);
  assertEquals(after.status, 404);
  await after.body?.cancel();
  const idle = await post(host, INITIALIZE("2025-11-25"), host.headers);
  const idleId = idle.headers.get("mcp-session-id")!;
  await idle.body?.cancel();
  assert(idleId !== id);
  // The log names a session by its own id, never its Mcp-Session-Id: only one has gone idle.
  await waitUntil(
    () => Promise.resolve(/HTTP session \S+ closed: idle/.test(host.stderr())),
    "the idle session to be closed",
  );
  assert(!host.stderr().includes(idleId), "the Mcp-Session-Id is not logged");
  const probe = await post(host, { jsonrpc: "2.0", id: 3, method: "ping" }, {
    ...host.headers,
    "mcp-session-id": idleId,
    "mcp-protocol-version": "2025-11-25",
  });
  assertEquals(probe.status, 404);
  await probe.body?.cancel();
});

/** The `_meta` envelope and headers of a raw 2026-07-28 request. */
function modernRequest(
  host: HttpHost,
  client: string,
  method: string,
  params: Record<string, unknown>,
) {
  return {
    headers: {
      ...host.headers,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: client, version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
  };
}

/**
 * POST a call, wait until it has started (a file it makes appears), then
 * drop the connection (the response, stream or not, is left unread till then).
 */
async function dropWhenStarted(
  host: HttpHost,
  request: { headers: Record<string, string>; body: unknown },
  started: string,
): Promise<void> {
  const drop = new AbortController();
  const response = fetch(host.url, {
    method: "POST",
    signal: drop.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...request.headers,
    },
    body: JSON.stringify(request.body),
  }).catch(() => undefined);
  const name = started.slice(started.lastIndexOf("/") + 1);
  const root = started.slice(0, started.lastIndexOf("/"));
  await waitUntil(() => commandWrote(root, name), `the call to make "${started}"`);
  drop.abort();
  await (await response)?.body?.cancel().catch(() => {});
}

/** Whether the log has a call of `tool` by `client` that ended `outcome`. */
async function logged(root: string, tool: string, client: string, outcome: string) {
  return (await logLines(root)).some((line) =>
    line.tool === tool && line.client === client && line.outcome === outcome
  );
}

/** Write files under a root, their folders made. */
async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${name.slice(0, name.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${name}`, text);
  }
}

// One host with the default launch for these steps, each step's files in a folder of its own.
// The first step reads the interaction log for its clients' calls, so it runs before the others.
Deno.test("http: on a host with the default launch", async (t) => {
  await using root = await tempDir();
  await writeFiles(root.path, {
    "versions/a.txt": "alpha\nbeta\n",
    "concurrent/a.txt": "from a\n",
    "concurrent/b.txt": "from b\n",
    "drop/a.txt": "steady\n",
  });
  await using host = await launchHttp([root.path]);
  await t.step(
    "http: a 2025-11-25 client and a 2026-07-28 client list and call file tools on one endpoint",
    async () => {
      const legacy = await legacyClient(host);
      try {
        const tools = (await legacy.listTools()).tools.map((tool: { name: string }) => tool.name);
        assert(tools.includes("read_file") && tools.includes("edit_file"), tools.join(", "));
        const read = await legacy.callTool({
          name: "read_file",
          arguments: { path: "versions/a.txt" },
        });
        assertEquals(resultText(read as CallToolResult), "alpha\nbeta\n");
      } finally {
        await legacy.close();
      }
      const modern = await modernClient(host);
      try {
        const tools = (await modern.listTools()).tools.map((tool) => tool.name);
        assert(tools.includes("read_file"), tools.join(", "));
        await modern.callTool({
          name: "edit_file",
          arguments: { path: "versions/a.txt", old_string: "beta", new_string: "gamma" },
        });
        const read = await modern.callTool({
          name: "read_file",
          arguments: { path: "versions/a.txt" },
        });
        assertEquals(resultText(read as CallToolResult), "alpha\ngamma\n");
      } finally {
        await modern.close();
      }
      assertEquals(await Deno.readTextFile(`${root.path}/versions/a.txt`), "alpha\ngamma\n");
      const lines = await logLines(root.path);
      assert(lines.some((line) => line.client === "legacy/1.0.0" && line.tool === "read_file"));
      assert(lines.some((line) => line.client === "modern/1.0.0" && line.tool === "edit_file"));
    },
  );
  await t.step(
    "http: a 2025-06-18 client is still admitted, and a revision the server lacks is refused",
    async () => {
      const old = await post(host, INITIALIZE("2025-06-18"), host.headers);
      assertEquals(old.status, 200);
      assertStringIncludes(await old.text(), `"protocolVersion":"2025-06-18"`);
      const modern = await post(host, {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2031-01-01",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }, { ...host.headers, "mcp-protocol-version": "2031-01-01" });
      const text = await modern.text();
      assertMatch(text, /-32022|nsupported protocol version/, text);
    },
  );
  await t.step(
    "http: no token or a wrong one is 401, a foreign Origin or Host is 403, the token file is 0600 and hidden from tools",
    async () => {
      const none = await post(host, INITIALIZE("2025-11-25"));
      assertEquals(none.status, 401);
      assertEquals(none.headers.get("www-authenticate"), 'Bearer realm="toolhost"');
      await none.body?.cancel();
      const wrong = await post(host, INITIALIZE("2025-11-25"), { Authorization: "Bearer nope" });
      assertEquals(wrong.status, 401);
      await wrong.body?.cancel();
      const origin = await post(host, INITIALIZE("2025-11-25"), {
        ...host.headers,
        Origin: "http://attacker.example",
      });
      assertEquals(origin.status, 403);
      await origin.body?.cancel();
      assertEquals(await rawStatus(host, "attacker.example"), 403);
      assertEquals(await rawStatus(host, new URL(host.url).host), 200);
      const ownOrigin = await post(host, INITIALIZE("2025-11-25"), {
        ...host.headers,
        Origin: new URL(host.url).origin,
      });
      assertEquals(ownOrigin.status, 200);
      await ownOrigin.body?.cancel();
      const info = await Deno.stat(`${root.path}/.toolhost/http-token`);
      assertEquals(info.mode! & 0o777, 0o600);
      const client = await legacyClient(host);
      try {
        const read = await client.callTool({
          name: "read_file",
          arguments: { path: ".toolhost/http-token" },
        }) as CallToolResult;
        assert(read.isError, resultText(read));
        assertMatch(resultText(read), /^path_denied/);
        if (canRun("bwrap")) {
          const shell = await client.callTool({
            name: "run_shell",
            arguments: { command: "cat .toolhost/http-token; ls -a .toolhost" },
          }) as CallToolResult;
          assert(!resultText(shell).includes(host.token!), "the shell read the token");
        }
      } finally {
        await client.close();
      }
    },
  );
  await t.step(
    "http: two clients calling at once never see each other's results or progress",
    async () => {
      const [a, b] = [await legacyClient(host, "a"), await legacyClient(host, "b")];
      try {
        const rounds = await Promise.all(
          [a, b].map((client, i) =>
            Promise.all(
              Array.from({ length: 40 }, () =>
                client.callTool({
                  name: "read_file",
                  arguments: { path: i === 0 ? "concurrent/a.txt" : "concurrent/b.txt" },
                })),
            )
          ),
        );
        for (const result of rounds[0]!) {
          assertEquals(resultText(result as CallToolResult), "from a\n");
        }
        for (const result of rounds[1]!) {
          assertEquals(resultText(result as CallToolResult), "from b\n");
        }
        if (!canRun("bwrap")) return;
        const seen: Record<string, string[]> = { a: [], b: [] };
        const both = await Promise.all([a, b].map((client, i) => {
          const me = i === 0 ? "a" : "b";
          return client.callTool(
            {
              name: "run_shell",
              arguments: { command: `for n in 1 2 3; do echo ${me}-line-$n; sleep 1.2; done` },
            },
            {
              onprogress: (progress: { message?: string | undefined }) =>
                void seen[me]!.push(progress.message ?? ""),
              timeout: 60_000,
            },
          );
        }));
        assertStringIncludes(resultText(both[0] as CallToolResult), "a-line-3");
        assertStringIncludes(resultText(both[1] as CallToolResult), "b-line-3");
        assert(seen.a!.length > 0 && seen.b!.length > 0, JSON.stringify(seen));
        assert(seen.a!.every((message) => !message.includes("b-line")), JSON.stringify(seen));
        assert(seen.b!.every((message) => !message.includes("a-line")), JSON.stringify(seen));
      } finally {
        await a.close();
        await b.close();
      }
    },
  );
  await t.step({
    name:
      "http: a client whose connection drops mid-call gets the call cancelled (both revisions), and another client is not disturbed",
    ignore: !canRun("bwrap"),
    async fn() {
      const staying = await legacyClient(host, "staying");
      const long = (marker: string) => ({
        name: "run_shell",
        arguments: { command: `touch ${marker}; sleep 120`, timeout_s: 300 },
      });
      try {
        const opened = await post(host, INITIALIZE("2025-11-25"), host.headers);
        const session = opened.headers.get("mcp-session-id")!;
        await opened.body?.cancel();
        await dropWhenStarted(host, {
          headers: {
            ...host.headers,
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-11-25",
          },
          body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: long("legacy.started") },
        }, `${root.path}/legacy.started`);
        await waitUntil(
          () => logged(root.path, "run_shell", "raw/1", "cancelled"),
          "the dropped 2025-11-25 call to be cancelled in the log",
        );
        const modern = modernRequest(host, "raw-modern", "tools/call", long("modern.started"));
        await dropWhenStarted(host, modern, `${root.path}/modern.started`);
        await waitUntil(
          () => logged(root.path, "run_shell", "raw-modern/1", "cancelled"),
          "the dropped 2026-07-28 call to be cancelled in the log",
        );
        const read = await staying.callTool({
          name: "read_file",
          arguments: { path: "drop/a.txt" },
        });
        assertEquals(resultText(read as CallToolResult), "steady\n");
      } finally {
        await staying.close();
      }
    },
  });
});

Deno.test({
  name: "http: SIGTERM lets a call in flight finish, then the server exits 0",
  ignore: !canRun("bwrap"),
  async fn() {
    await using root = await tempDir();
    await using host = await launchHttp([root.path]);
    const client = await legacyClient(host);
    let started = false;
    const call = client.callTool(
      {
        name: "run_shell",
        arguments: { command: "echo started; sleep 3; echo finished" },
      },
      { onprogress: () => void (started = true), timeout: 60_000 },
    );
    await waitUntil(() => Promise.resolve(started), "the call's first progress");
    const stopped = host.stop();
    assertStringIncludes(resultText(await call as CallToolResult), "finished");
    assertEquals((await stopped).code, 0);
    const refused = await post(host, INITIALIZE("2025-11-25"), host.headers).catch(() => null);
    assert(refused === null || refused.status === 503);
  },
});
