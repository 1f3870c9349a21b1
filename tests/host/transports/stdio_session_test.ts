/**
 * Over stdio, what the HTTP endpoint refuses before a server sees it is
 * refused the same way, and a batch is answered as HTTP answers it: the
 * same raw messages go to the launch `mcp-config` prints and to
 * `toolhost start --http`, each over a root of its own with the same files,
 * and HTTP's answers are the oracle (stdio answers a refused request with
 * its id where HTTP, which has a status to say it, gives `null`). One HTTP
 * host answers every case (each opens its own HTTP session, and a request
 * with no session is answered alone); each case starts a stdio host of its
 * own, as a stdio host serves one session for its whole life.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { type HttpHost, launchHttp } from "../../_mcp.ts";
import { INITIALIZE, post, projectWith } from "./_http.ts";
import { type Message, type RawServer, startRaw, waitFor } from "./stdio_raw.ts";

const FILES = { "a.txt": "alpha\n", "b.txt": "beta\n" };

/** A 2026-07-28 request's `_meta`: the revision and who asks, in every request. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

const readOf = (id: number, path: string, meta?: Record<string, unknown>): Message => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "read_file", arguments: { path }, ...(meta ? { _meta: meta } : {}) },
});

const ping = (id: number): Message => ({ jsonrpc: "2.0", id, method: "ping" });

/** The answers (messages with an id and no method) the server wrote from `from` on. */
function answersFrom(server: RawServer, from: number): Message[] {
  return server.messages.slice(from).filter((message) => "id" in message && !("method" in message));
}

/** Write one line to the stdio server and wait for `count` answers to it. */
async function overStdio(server: RawServer, body: unknown, count = 1): Promise<Message[]> {
  const from = server.messages.length;
  await server.write(`${JSON.stringify(body)}\n`);
  await waitFor(server, `${count} answers`, () => answersFrom(server, from).length >= count);
  return answersFrom(server, from);
}

/** POST one body to the HTTP endpoint: its JSON-RPC messages (a JSON body, or an event stream's). */
async function overHttp(
  host: HttpHost,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; messages: Message[]; session: string | null }> {
  const response = await post(host, body, { ...host.headers, ...headers });
  const text = await response.text();
  const stream = response.headers.get("content-type")?.startsWith("text/event-stream");
  const payloads = stream
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5))
    : [text];
  return {
    status: response.status,
    messages: payloads.filter((data) => data.trim() !== "").map((data) => JSON.parse(data)),
    session: response.headers.get("mcp-session-id"),
  };
}

/** Open a 2025-11-25 session over HTTP: the headers its requests carry. */
async function httpSession(host: HttpHost): Promise<Record<string, string>> {
  const opened = await overHttp(host, INITIALIZE("2025-11-25"));
  assert(opened.session, `no session: ${JSON.stringify(opened)}`);
  const headers = { "mcp-session-id": opened.session, "mcp-protocol-version": "2025-11-25" };
  await overHttp(host, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

/** Initialize the stdio session at 2025-11-25, as HTTP's was. */
async function stdioSession(server: RawServer): Promise<void> {
  const [answer] = await overStdio(server, INITIALIZE("2025-11-25"));
  assertEquals(answer?.id, 1);
  assert("result" in answer!, JSON.stringify(answer));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/** A stdio host over its own copy of the files, its input ended and its exit awaited when disposed. */
async function stdioHost(): Promise<AsyncDisposable & { stdio: RawServer }> {
  const root = await projectWith(FILES);
  const stdio = await startRaw([root.path], "off");
  return {
    stdio,
    async [Symbol.asyncDispose]() {
      await stdio.closeInput().catch(() => {});
      await stdio.child.status;
      await root[Symbol.asyncDispose]();
    },
  };
}

Deno.test("stdio answers as HTTP does, case by case", async (t) => {
  await using httpRoot = await projectWith(FILES);
  await using http = await launchHttp([httpRoot.path]);

  await t.step(
    "stdio refuses a 2025-era request before initialize, and a second initialize, as HTTP does",
    async () => {
      await using hosts = await stdioHost();
      const { stdio } = hosts;
      const early = await overHttp(http, readOf(5, "a.txt"));
      assertEquals(early.status, 400);
      const [refused] = early.messages;
      assertEquals(refused?.id, null);
      assertEquals(await overStdio(stdio, readOf(5, "a.txt")), [{ ...refused, id: 5 }]);

      const headers = await httpSession(http);
      await stdioSession(stdio);
      const [read] = (await overHttp(http, readOf(6, "a.txt"), headers)).messages;
      assertEquals((read?.result as { content: unknown }).content, [{
        type: "text",
        text: "alpha\n",
      }]);
      assertEquals(await overStdio(stdio, readOf(6, "a.txt")), [read]);

      const again = await overHttp(http, { ...INITIALIZE("2025-11-25"), id: 7 }, headers);
      assertEquals(again.status, 400);
      const [twice] = again.messages;
      assertEquals(await overStdio(stdio, { ...INITIALIZE("2025-11-25"), id: 7 }), [{
        ...twice,
        id: 7,
      }]);
    },
  );

  await t.step("stdio serves a 2026-07-28 request with no initialize, as HTTP does", async () => {
    await using hosts = await stdioHost();
    const { stdio } = hosts;
    const [overHttpRead] = (await overHttp(http, readOf(1, "b.txt", ENVELOPE), {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "read_file",
    })).messages;
    const [overStdioRead] = await overStdio(stdio, readOf(1, "b.txt", ENVELOPE));
    assertEquals((overStdioRead?.result as { content: unknown }).content, [
      { type: "text", text: "beta\n" },
    ]);
    assertEquals(overStdioRead, overHttpRead);
  });

  await t.step(
    "stdio answers a JSON-RPC batch as HTTP does, before and after initialize",
    async (t) => {
      await using hosts = await stdioHost();
      const { stdio } = hosts;
      const before: Array<[string, unknown[]]> = [
        ["an empty batch", []],
        ["a batch with a 2026-07-28 request", [readOf(21, "a.txt", ENVELOPE)]],
        ["a batch with an invalid message", [{ jsonrpc: "2.0", id: 22 }]],
        ["initialize with another request", [INITIALIZE("2025-11-25"), ping(23)]],
        ["a batch before initialize", [readOf(24, "a.txt"), ping(25)]],
      ];
      for (const [what, batch] of before) {
        await t.step(`refused: ${what}`, async () => {
          const answer = await overHttp(http, batch);
          assertEquals(answer.status, 400);
          assertEquals(answer.messages.length, 1);
          assertEquals(answer.messages[0]?.id, null);
          assertEquals(await overStdio(stdio, batch), answer.messages);
        });
      }

      const headers = await httpSession(http);
      await stdioSession(stdio);
      await t.step("answered: two calls, each on its own", async () => {
        const batch = [readOf(31, "a.txt"), readOf(32, "b.txt")];
        const answer = await overHttp(http, batch, headers);
        assertEquals(answer.status, 200);
        const byId = (messages: Message[]) =>
          messages.toSorted((a, b) => Number(a.id) - Number(b.id));
        const overHttpAnswers = byId(answer.messages);
        assertEquals(
          overHttpAnswers.map((message) => (message.result as { content: unknown }).content),
          [[{ type: "text", text: "alpha\n" }], [{ type: "text", text: "beta\n" }]],
        );
        assertEquals(byId(await overStdio(stdio, batch, 2)), overHttpAnswers);
      });
      const after: Array<[string, unknown[]]> = [
        ["101 messages", Array.from({ length: 101 }, (_, i) => ping(100 + i))],
        ["initialize once initialized", [INITIALIZE("2025-11-25")]],
      ];
      for (const [what, batch] of after) {
        await t.step(`refused: ${what}`, async () => {
          const answer = await overHttp(http, batch, headers);
          assertEquals(answer.status, 400);
          assertEquals(answer.messages.length, 1);
          assertEquals(await overStdio(stdio, batch), answer.messages);
        });
      }
    },
  );
});
