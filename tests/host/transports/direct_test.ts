/**
 * Stdio's direct route (`host/transports/_direct.ts`) on its own, with a
 * stand-in host, server and call function: which messages it takes and which
 * it leaves to the SDK, what it answers, and how cancelling and closing end
 * its calls. That its answers are the SDK route's, on the real host, is
 * `direct_route_test.ts`.
 */

import type { JSONRPCMessage, Server } from "@modelcontextprotocol/server";
import { assert, assertEquals } from "../../_assert.ts";
import { cancellation, directRoute } from "../../../host/transports/_direct.ts";
import type { CallMeans, GatewayCall } from "../../../host/transports/_call_tool.ts";
import type { Host } from "../../../host/host.ts";

interface Setup {
  revision?: string | undefined;
  approvals?: boolean;
  elicits?: boolean;
  call?: GatewayCall;
}

/** A route over a stand-in host (its workers run `read_file`) and server, with what it sent and called. */
function routeWith(setup: Setup = {}) {
  const host = {
    runsInWorker: (name: string) => name === "read_file",
    approvals: setup.approvals ? {} : null,
  } as unknown as Host;
  const server = {
    getNegotiatedProtocolVersion: () => "revision" in setup ? setup.revision : "2025-11-25",
    getClientCapabilities: () => (setup.elicits ? { elicitation: {} } : {}),
  } as unknown as Server;
  const calls: Array<{ params: unknown; means: CallMeans }> = [];
  const call: GatewayCall = setup.call ?? ((params, means) => {
    calls.push({ params, means });
    return Promise.resolve({ content: [{ type: "text", text: "hello" }] });
  });
  const sent: JSONRPCMessage[] = [];
  const send = (message: JSONRPCMessage) => (sent.push(message), Promise.resolve());
  const route = directRoute(host, server, call);
  return { route, calls, sent, take: (message: unknown) => route.take(message, send) };
}

const plain = (id: number | string = 7, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "read_file", arguments: { path: "a.txt" }, ...params },
});

/** Let the route's queued work and its awaits run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("direct route: takes a worker tool's plain call and answers it with the call's result", async () => {
  const { calls, sent, take } = routeWith();
  const token = { _meta: { progressToken: "p1" } };
  assertEquals(take(plain(7, token)), 7);
  assertEquals(calls, [], "the call starts after this turn's lines, as the SDK starts handlers");
  await settle();
  assertEquals(calls.length, 1);
  assertEquals(calls[0]!.params, plain(7, token).params);
  assertEquals(calls[0]!.means.ctx, undefined, "no SDK context: approvals never ask through it");
  assertEquals(sent, [
    { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "hello" }] } },
  ]);
  assertEquals(take(plain("s-1", { arguments: undefined })), "s-1", "a string id, no arguments");
});

Deno.test("direct route: leaves every other message to the SDK", () => {
  const { take } = routeWith();
  const others: Array<[string, unknown]> = [
    ["not an object", "tools/call"],
    ["an array", [plain()]],
    ["another method", { ...plain(), method: "tools/list" }],
    ["a notification", { jsonrpc: "2.0", method: "tools/call", params: plain().params }],
    ["not JSON-RPC 2.0", { ...plain(), jsonrpc: "1.0" }],
    ["a member JSON-RPC does not have", { ...plain(), extra: 1 }],
    ["a fractional id", plain(1.5)],
    ["a null id", { ...plain(), id: null }],
    ["no params", { jsonrpc: "2.0", id: 1, method: "tools/call" }],
    ["params that are an array", { ...plain(), params: [] }],
    ["a name that is no string", plain(1, { name: 3 })],
    ["arguments that are an array", plain(1, { arguments: ["a.txt"] })],
    ["arguments that are null", plain(1, { arguments: null })],
    ["a task", plain(1, { task: { ttl: 1000 } })],
    ["_meta with more than a progress token", plain(1, { _meta: { progressToken: 1, x: 2 } })],
    ["a fractional progress token", plain(1, { _meta: { progressToken: 0.5 } })],
    ["_meta that is no object", plain(1, { _meta: "p" })],
    ["a tool no worker runs", plain(1, { name: "read_interactions" })],
  ];
  for (const [what, message] of others) assertEquals(take(message), undefined, what);
});

Deno.test("direct route: leaves calls to the SDK before initialize, on 2026-07-28, and where approvals may ask", () => {
  assertEquals(routeWith({ revision: undefined }).take(plain()), undefined, "not initialized");
  assertEquals(routeWith({ revision: "2026-07-28" }).take(plain()), undefined, "2026-07-28");
  for (const revision of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
    assertEquals(routeWith({ revision }).take(plain()), 7, revision);
  }
  assertEquals(routeWith({ approvals: true, elicits: true }).take(plain()), undefined);
  assertEquals(routeWith({ approvals: true }).take(plain()), 7, "a client that cannot be asked");
  assertEquals(routeWith({ elicits: true }).take(plain()), 7, "no approvals");
});

Deno.test("direct route: a thrown error is answered as the SDK answers it", async () => {
  const cases: Array<[unknown, unknown]> = [
    [
      Object.assign(new Error("Unknown tool"), { code: -32602 }),
      { code: -32602, message: "Unknown tool" },
    ],
    [new Error("boom"), { code: -32603, message: "boom" }],
    [
      Object.assign(new Error("gone"), { code: -32002, data: { uri: "x" } }),
      { code: -32602, message: "gone", data: { uri: "x" } },
    ],
    [Object.assign(new Error("odd"), { code: 1.5 }), { code: -32603, message: "odd" }],
    [{ code: -32000 }, { code: -32000, message: "Internal error" }],
  ];
  for (const [thrown, error] of cases) {
    const { sent, take } = routeWith({ call: () => Promise.reject(thrown) });
    take(plain(3));
    await settle();
    assertEquals(sent, [{ jsonrpc: "2.0", id: 3, error }] as unknown as JSONRPCMessage[]);
  }
});

Deno.test("direct route: progress goes to the client; a cancelled call and a closed connection answer nothing", async () => {
  const waiting: Array<() => void> = [];
  const finish = () => waiting.splice(0).forEach((resolve) => resolve());
  const signals: AbortSignal[] = [];
  const { route, sent, take } = routeWith({
    call: async (_params, means) => {
      signals.push(means.signal);
      await means.notify({
        method: "notifications/progress",
        params: { progressToken: "p", progress: 1 },
      });
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { content: [] };
    },
  });
  take(plain(1));
  await settle();
  assertEquals(sent, [{
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p", progress: 1 },
  }]);
  route.cancel(1, "the user pressed Esc");
  assert(signals[0]!.aborted);
  assertEquals(signals[0]!.reason, "the user pressed Esc");
  finish();
  await settle();
  assertEquals(sent.length, 1, "no answer to a cancelled call");
  assertEquals(route.cancel(99), false, "an id it never had");
  take(plain(2));
  take(plain(3));
  await settle();
  route.close();
  assert(signals[1]!.aborted && signals[2]!.aborted, "closing aborts every call in flight");
  finish();
  await settle();
  assertEquals(sent.filter((message) => "id" in message), [], "and none is answered");
});

Deno.test("direct route: a reused id's cancellation reaches its newest request, here or (once released) the SDK's", async () => {
  const waiting: Array<() => void> = [];
  const signals: AbortSignal[] = [];
  const { route, sent, take } = routeWith({
    call: async (_params, means) => {
      signals.push(means.signal);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { content: [] };
    },
  });
  assertEquals(
    [take(plain(9)), take(plain(9))],
    [9, 9],
    "taken again, as the SDK takes a reused id",
  );
  await settle();
  assertEquals(route.cancel(9), true);
  assertEquals(signals.map((signal) => signal.aborted), [false, true], "the newest only");
  waiting.splice(0).forEach((resolve) => resolve());
  await settle();
  assertEquals(sent, [{ jsonrpc: "2.0", id: 9, result: { content: [] } }], "the older is answered");
  take(plain(5));
  route.release(5);
  assertEquals(route.cancel(5), false, "released: the newest request with id 5 is the SDK's");
  await settle();
  assertEquals(signals[2]!.aborted, false);
  assertEquals(route.cancel(404), false);
});

Deno.test("direct route: after the close, progress is not written and nothing more is taken", async () => {
  let notify: CallMeans["notify"] | undefined;
  const { route, sent, take } = routeWith({
    call: (_params, means) => ((notify = means.notify), new Promise(() => {})),
  });
  take(plain(1));
  await settle();
  route.close();
  let refused = false;
  await notify!({ method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
    .catch(() => (refused = true));
  assert(refused, "a notification after the close is refused, as the SDK's is");
  assertEquals(sent, []);
  assertEquals(take(plain(2)), undefined);
});

Deno.test("direct route: a cancellation counts only as the SDK would check it", () => {
  assertEquals(cancellation({ requestId: 3 }), { id: 3 });
  assertEquals(cancellation({ requestId: "a", reason: "Esc", _meta: { progressToken: 1 } }), {
    id: "a",
    reason: "Esc",
  });
  assertEquals(
    cancellation({ requestId: 3, extra: true }),
    { id: 3 },
    "other members are kept out",
  );
  const ignored: Array<[string, unknown]> = [
    ["no params", undefined],
    ["no id", { reason: "Esc" }],
    ["a fractional id", { requestId: 1.5 }],
    ["a reason that is no string", { requestId: 3, reason: 42 }],
    ["_meta that is no object", { requestId: 3, _meta: [] }],
    ["a fractional progress token", { requestId: 3, _meta: { progressToken: 0.5 } }],
    ["a related task without its id", {
      requestId: 3,
      _meta: { "io.modelcontextprotocol/related-task": {} },
    }],
  ];
  for (const [what, params] of ignored) assertEquals(cancellation(params), undefined, what);
});
