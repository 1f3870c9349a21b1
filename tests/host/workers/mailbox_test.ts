/**
 * Mailboxes between the host and a tool worker: messages arrive in order,
 * and an idle listener polls only right after a message, never while it
 * stays idle (it would burn a share of a core for as long as the host runs).
 */

import { assert, assertEquals } from "../../_assert.ts";
import { Mailbox, threadYielder } from "../../../host/workers/mailbox.ts";
import { findLibc } from "../../../security/landlock.ts";

const LISTENER = new URL("../../../fixtures/mailbox/idle_listener.ts", import.meta.url);

Deno.test("mailbox: an idle listener polls once after each message and not while idle", async () => {
  const toWorker = Mailbox.buffer();
  const fromWorker = Mailbox.buffer();
  const worker = new Worker(LISTENER, { type: "module" });
  try {
    worker.postMessage({ inbox: toWorker, outbox: fromWorker });
    const outbox = new Mailbox(toWorker);
    const inbox = new Mailbox(fromWorker);
    const answers: unknown[] = [];
    for (const n of [1, 2]) {
      while (!outbox.send(n)) await new Promise((resolve) => setTimeout(resolve, 5));
      let answer: unknown;
      while ((answer = inbox.take(50)) === undefined) await Promise.resolve();
      answers.push(answer);
      // Idle through more than two of the listener's blocking waits (1 s each).
      if (n === 1) await new Promise((resolve) => setTimeout(resolve, 2_500));
    }
    assertEquals(answers, [{ echo: 1, polls: 0 }, { echo: 2, polls: 1 }]);
  } finally {
    worker.terminate();
  }
});

Deno.test("mailbox: threadYielder loads sched_yield from libc, and keeps working once FFI is revoked", async () => {
  assertEquals(threadYielder(null), undefined);
  assertEquals(threadYielder("/nonexistent/libc.so.6"), undefined);
  if (Deno.build.os !== "linux") return;
  const libc = findLibc();
  assert(libc, "libc is found on Linux");
  // As in a tool worker: made while FFI is granted, called after it is revoked.
  const worker = new Worker(new URL("../../../fixtures/mailbox/yielder.ts", import.meta.url), {
    type: "module",
    deno: { permissions: { ffi: [libc], read: false, write: false, net: false, env: false } },
  } as WorkerOptions);
  try {
    const answer = new Promise<string>((resolve) => {
      worker.onmessage = (event: MessageEvent<string>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        resolve(`error: ${event.message}`);
      };
    });
    worker.postMessage(libc);
    assertEquals(await answer, "yielded 1000 times with FFI revoked");
  } finally {
    worker.terminate();
  }
});
