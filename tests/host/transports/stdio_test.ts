import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import {
  LineTransport,
  MAX_END_GRACE_MS,
  MAX_MESSAGE_DEPTH,
} from "../../../host/transports/stdio.ts";
import { SessionGate } from "../../../host/transports/_stdio_gate.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** An input that gives these chunks, one a read, then ends. */
function inputOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

/** A transport over an in-memory input, with what it received and wrote. */
function transportOver(chunks: Uint8Array[], maxMessageBytes = 1024, gate?: SessionGate) {
  const input = inputOf(chunks);
  const written: string[] = [];
  const received: JSONRPCMessage[] = [];
  const refused: string[] = [];
  const decoder = new TextDecoder();
  const transport = new LineTransport({
    maxMessageBytes,
    endGraceMs: 60_000,
    input,
    output: {
      write(bytes) {
        written.push(decoder.decode(bytes));
        return Promise.resolve(bytes.length);
      },
    },
    onRefused: (why) => refused.push(why),
    ...(gate ? { gate } : {}),
  });
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = (message) => {
    received.push(message);
    // Answer requests, so that the transport may close when its input ends.
    if ("method" in message && "id" in message) {
      void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  };
  return { transport, written, received, refused, closed };
}

const encode = (text: string) => new TextEncoder().encode(text);
const request = (id: number | string, params: unknown = {}) =>
  JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params, id });

Deno.test("LineTransport refuses a line over the bound, with its id, and keeps reading", async () => {
  const huge = request(7, { name: "read_file", arguments: { path: "x".repeat(50_000) } });
  // The long line arrives in many chunks, as a pipe delivers it.
  const chunks = [encode(`${request(1)}\n`)];
  for (let i = 0; i < huge.length; i += 4096) chunks.push(encode(huge.slice(i, i + 4096)));
  chunks.push(encode(`\n${request(2)}\n`));
  const { transport, written, received, refused, closed } = transportOver(chunks);
  await transport.start();
  await closed;
  assertEquals(received.map((message) => "id" in message ? message.id : undefined), [1, 2]);
  const replies = written.map((line) => JSON.parse(line));
  const error = replies.find((reply) => reply.error);
  assertEquals(error.id, 7);
  assertEquals(error.error.code, -32600);
  assertMatch(
    error.error.message,
    /^Cannot read the request: it is \d+ bytes, over the limit of 1024; send less$/,
  );
  assertEquals(refused.length, 1);
});

Deno.test("LineTransport answers malformed, non-JSON-RPC and too deep lines, and goes on", async () => {
  const deep = `{"jsonrpc":"2.0","id":"d","method":"x","params":${"[".repeat(200)}${
    "]".repeat(200)
  }}`;
  const lines = ["{not json", '{"hello":"world","id":5}', deep, "", request(3)];
  const { transport, written, received, closed } = transportOver(
    [encode(lines.join("\n") + "\n")],
    100_000,
  );
  await transport.start();
  await closed;
  assertEquals(received.length, 1);
  const errors = written.map((line) => JSON.parse(line)).filter((reply) => reply.error);
  assertEquals(errors.map((reply) => [reply.id, reply.error.code]), [
    [null, -32700],
    [5, -32600],
    ["d", -32600],
  ]);
  assertMatch(errors[2].error.message, new RegExp(`over the limit of ${MAX_MESSAGE_DEPTH}`));
});

Deno.test("LineTransport with a gate refuses a request before initialize with its id, only tells a notification's refusal, and reads a batch message by message", async () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  const lines = [
    request(9),
    initialized,
    `[${request(10)}]`,
    initialize,
    initialized,
    `[${request(2)},${request(3)}]`,
    "[]",
  ];
  const { transport, written, received, refused, closed } = transportOver(
    [encode(lines.join("\n") + "\n")],
    1024,
    new SessionGate(),
  );
  await transport.start();
  await closed;
  assertEquals(
    received.map((message) => "id" in message ? message.id : "method" in message && message.method),
    [1, "notifications/initialized", 2, 3],
  );
  const errors = written.map((line) => JSON.parse(line)).filter((reply) => reply.error);
  assertEquals(errors.map((reply) => [reply.id, reply.error.code, reply.error.message]), [
    [9, -32000, "Bad Request: Server not initialized"],
    [null, -32000, "Bad Request: Server not initialized"],
    [null, -32600, "Bad Request: empty JSON-RPC batch"],
  ]);
  // The notification's refusal is told (for the log) but never answered.
  assertEquals(refused.length, 4);
  assertEquals(written.filter((line) => JSON.parse(line).result).length, 3);
});

Deno.test("LineTransport closes when its input ends and every request is answered", async () => {
  const { transport, written, closed } = transportOver([
    encode(`${request(1)}\r\n${request(2)}`),
    encode("\n"),
  ]);
  await transport.start();
  await closed;
  assertEquals(written.length, 2);
  assert(written.every((line) => line.endsWith("\n")));
});

/** A transport over in-memory lines that answers nothing by itself, with what it received. */
function silentTransport(lines: string[]) {
  const chunks = lines.map((line) => encode(`${line}\n`));
  const input = inputOf(chunks);
  const transport = new LineTransport({
    maxMessageBytes: 1024,
    endGraceMs: 60_000,
    input,
    output: { write: (bytes) => Promise.resolve(bytes.length) },
  });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    transport.onclose = () => {
      isClosed = true;
      resolve();
    }
  );
  return { transport, received, closed, isClosed: () => isClosed };
}

/** One turn of the event loop: what the input and the answers set off has happened by then. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

const cancel = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });

Deno.test("LineTransport: a request the client cancelled holds nothing once the input ends", async () => {
  const { transport, received, isClosed } = silentTransport([request(1), request(2), cancel(1)]);
  await transport.start();
  // The transport reads a chunk per turn of the event loop: wait until the three were read.
  for (let turns = 0; turns < 1_000 && received.length < 3; turns++) await turn();
  assertEquals(received.length, 3, "both requests and the cancellation were read");
  assertEquals(isClosed(), false, "request 2 is still due");
  // The server never answers a cancelled request (MCP): answering 2 is all the end waits for.
  await transport.send({ jsonrpc: "2.0", id: 2, result: {} });
  for (let turns = 0; turns < 1_000 && !isClosed(); turns++) await turn();
  assert(isClosed(), "it closed as soon as the last request still due was answered");
});

Deno.test("LineTransport: once the input ends, a request never answered holds it only briefly, whatever endGraceMs says", async () => {
  const { transport, closed, isClosed } = silentTransport([request(1)]);
  await transport.start();
  let guard: ReturnType<typeof setTimeout> | undefined;
  const outer = new Promise<void>((resolve) => (guard = setTimeout(resolve, 20_000)));
  await Promise.race([closed, outer]);
  clearTimeout(guard);
  assert(isClosed(), `it did not close within 20 s (its grace is at most ${MAX_END_GRACE_MS} ms)`);
});

Deno.test("LineTransport: a direct route's requests skip onmessage, are logged, hold the end until answered, and take their cancels; the close reaches it", async () => {
  const chunks = [request(1), request(2), cancel(1), request(3), cancel(3)];
  const input = inputOf(chunks.map((line) => encode(`${line}\n`)));
  const heard: string[] = [];
  const sends: Array<(message: JSONRPCMessage) => Promise<void>> = [];
  const traffic: string[] = [];
  const transport = new LineTransport({
    maxMessageBytes: 1024,
    endGraceMs: 60_000,
    input,
    output: { write: (bytes) => Promise.resolve(bytes.length) },
    onTraffic: (direction, message) =>
      traffic.push(
        `${direction} ${"id" in message ? message.id : "method" in message ? message.method : ""}`,
      ),
    direct: {
      // It takes requests 1 and 2, and leaves 3 (and the notifications) to the SDK.
      take: (message, send) => {
        const id = (message as { id?: number }).id;
        if (id !== 1 && id !== 2) return undefined;
        sends.push(send);
        return id;
      },
      release: (id) => void heard.push(`release ${id}`),
      cancel: (id) => (heard.push(`cancel ${id}`), id === 1 || id === 2),
      close: () => void heard.push("close"),
    },
  });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  let isClosed = false;
  transport.onclose = () => (isClosed = true);
  await transport.start();
  // The transport reads a chunk per turn of the event loop: wait until the five were read.
  for (let turns = 0; turns < 1_000 && received.length < 2; turns++) await turn();
  assertEquals(
    received.map((message) => "id" in message ? message.id : "method" in message && message.method),
    [3, "notifications/cancelled"],
    "only what the route left reaches the SDK: request 3 and its cancellation, not request 1's",
  );
  assertEquals(traffic, [
    "in 1",
    "in 2",
    "in notifications/cancelled",
    "in 3",
    "in notifications/cancelled",
  ]);
  assertEquals(heard, ["cancel 1", "release 3", "cancel 3"]);
  assertEquals(isClosed, false, "request 2, taken by the route, is still due");
  await sends[1]!({ jsonrpc: "2.0", id: 2, result: {} });
  await turn();
  assert(isClosed, "answering it through the route's send ended the session");
  assertEquals(heard.at(-1), "close");
  assertEquals(traffic.at(-1), "out 2");
});
