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
  assertEquals(done, ["queued", "each", "each"]);
});

Deno.test("idle work: with no wait to run it, queued work runs by itself", async () => {
  const idle = new IdleWork(() => {});
  const ran = new Promise<string>((resolve) => idle.add(() => resolve("ran")));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("not run"), 30_000);
  });
  assertEquals(await Promise.race([ran, late]), "ran");
  clearTimeout(timer);
});
