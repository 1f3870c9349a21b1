/**
 * Work the host queues after a reply runs when it waits on a worker, in
 * order, each piece once; a piece that throws costs only itself; and without
 * a wait the work still runs soon, by itself.
 */

import { assertEquals } from "../../_assert.ts";
import { IdleWork } from "../../../host/state/idle_work.ts";

Deno.test("idle work: run does everything queued, in order, once; a failure costs only itself", () => {
  const errors: unknown[] = [];
  const idle = new IdleWork((error) => errors.push(error));
  const done: number[] = [];
  idle.add(() => done.push(1));
  idle.add(() => {
    throw new Error("boom");
  });
  idle.add(() => done.push(3));
  idle.run();
  idle.run();
  idle.close();
  assertEquals(done, [1, 3]);
  assertEquals(errors.map((error) => (error as Error).message), ["boom"]);
});

Deno.test("idle work: the work of every run runs after what was queued, at each run", () => {
  const idle = new IdleWork(() => {});
  const done: string[] = [];
  idle.each(() => done.push("each"));
  idle.add(() => done.push("queued"));
  idle.run();
  idle.run();
  idle.close();
  assertEquals(done, ["queued", "each", "each"]);
});

Deno.test("idle work: with no wait to run it, queued work runs by itself, also work queued after a run", async () => {
  const idle = new IdleWork(() => {});
  const first: string[] = [];
  idle.add(() => first.push("first"));
  idle.run();
  // The timer armed for the first piece is still running: it takes the next one along.
  const ran = new Promise<string>((resolve) => idle.add(() => resolve("ran")));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("not run"), 30_000);
  });
  assertEquals(await Promise.race([ran, late]), "ran");
  assertEquals(first, ["first"]);
  clearTimeout(timer);
  idle.close();
});

Deno.test("idle work: closed, no timer is left running", () => {
  const idle = new IdleWork(() => {});
  const done: string[] = [];
  idle.add(() => done.push("queued"));
  idle.run();
  idle.close();
  // The test's sanitizer fails it if a timer were still armed.
  assertEquals(done, ["queued"]);
});
