/**
 * The HTTP sessions' event store (unit): what a client may resume is kept,
 * within its bounds, and a stream's events go a minute after its answer.
 */

import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { assertEquals, assertRejects } from "../../_assert.ts";
import { BoundedEventStore } from "../../../host/transports/_event_store.ts";

const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: n },
});
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, result: { content: [] } });

async function replay(store: BoundedEventStore, after: string): Promise<JSONRPCMessage[]> {
  const sent: JSONRPCMessage[] = [];
  await store.replayEventsAfter(after, {
    send: (_id, message) => {
      sent.push(message);
      return Promise.resolve();
    },
  });
  return sent;
}

Deno.test("event store: a stream resumes after its last event seen, and only that stream's events come", async () => {
  const store = new BoundedEventStore(() => 0);
  const first = await store.storeEvent("a", progress(1));
  await store.storeEvent("b", progress(9));
  await store.storeEvent("a", progress(2));
  await store.storeEvent("a", answer(1));
  assertEquals(await store.getStreamIdForEventId(first), "a");
  assertEquals(await replay(store, first), [progress(2), answer(1)]);
});

Deno.test("event store: a stream's events are dropped a minute after its answer; open streams keep theirs", async () => {
  let now = 0;
  const store = new BoundedEventStore(() => now);
  const open = await store.storeEvent("open", progress(1));
  const done = await store.storeEvent("done", progress(1));
  await store.storeEvent("done", answer(1));
  now = 59_000;
  await store.storeEvent("open", progress(2));
  assertEquals(await store.getStreamIdForEventId(done), "done");
  now = 61_000;
  await store.storeEvent("open", progress(3));
  assertEquals(await store.getStreamIdForEventId(done), undefined);
  await assertRejects(() => replay(store, done), RangeError);
  assertEquals(await replay(store, open), [progress(2), progress(3)]);
});

Deno.test("event store: at most 256 events and 1 MiB are kept, the oldest going first", async () => {
  const store = new BoundedEventStore(() => 0);
  const ids: string[] = [];
  for (let n = 0; n < 300; n++) ids.push(await store.storeEvent("a", progress(n)));
  assertEquals(store.size, 256);
  assertEquals(await store.getStreamIdForEventId(ids[0]!), undefined);
  assertEquals(await store.getStreamIdForEventId(ids[299]!), "a");
  const big = (id: number): JSONRPCMessage => ({
    jsonrpc: "2.0",
    id,
    result: { text: "x".repeat(400_000) },
  });
  const bigIds: string[] = [];
  for (let n = 0; n < 4; n++) bigIds.push(await store.storeEvent("b", big(n)));
  // 1 MiB holds two of them: every small one and the two oldest big ones went.
  assertEquals(store.size, 2);
  assertEquals(await store.getStreamIdForEventId(ids[299]!), undefined);
  assertEquals(await replay(store, bigIds[2]!), [big(3)]);
});

Deno.test("event store: streams expire in the order they were answered, also after thousands of them", async () => {
  let now = 0;
  const store = new BoundedEventStore(() => now);
  for (let n = 0; n < 5_000; n++) await store.storeEvent(`old${n}`, answer(n));
  now = 30_000;
  const recent = await store.storeEvent("recent", progress(1));
  await store.storeEvent("recent", answer(1));
  now = 61_000;
  const open = await store.storeEvent("open", progress(1));
  // Every "old" stream is past its minute; "recent" was answered 31 s ago.
  assertEquals(store.size, 3);
  assertEquals(await store.getStreamIdForEventId(recent), "recent");
  now = 91_000;
  await store.storeEvent("open", progress(2));
  assertEquals(await store.getStreamIdForEventId(recent), undefined);
  assertEquals(await replay(store, open), [progress(2)]);
});
