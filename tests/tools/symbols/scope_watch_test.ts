/**
 * A scope's watchers on their own (`tools/symbols/_scope_watch.ts`): a
 * change to a known file marks its directory, a new file or directory marks
 * the scope for a walk, the barrier returns only once every change made
 * before it was reported, and a burst that overflows Deno's queue while the
 * thread sleeps (as a tool worker does between calls) marks the scope for a
 * walk instead of losing changes.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { WatchedScope } from "../../../tools/symbols/_scope_watch.ts";

const python = (name: string) => name.endsWith(".py");

Deno.test("a watched scope learns what changed from the kernel", async (t) => {
  await using root = await tempDir();
  const ctx = await toolContext(root.path);
  await Deno.mkdir(ctx.policy.stateDir, { recursive: true });
  const dirs = Array.from({ length: 1_000 }, (_, i) => `${root.path}/d${i}`);
  for (const dir of dirs) {
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/m.py`, "x = 1\n");
  }
  const scope = new WatchedScope(ctx, python);
  for (const dir of dirs) {
    scope.files.set(`${dir}/m.py`, {
      name: "m.py",
      path: `${dir}/m.py`,
      kind: "file",
      size: 6,
      mtime: null,
    });
  }
  scope.watch(new Set([root.path, ...dirs]));
  try {
    await t.step("the barrier returns once every earlier change was reported", async () => {
      await Deno.writeTextFile(`${dirs[3]}/m.py`, "x = 2\n");
      assert(await scope.barrier());
      assertEquals([...scope.dirty], [dirs[3]]);
      assert(!scope.stale);
      scope.dirty.clear();
    });

    await t.step(
      "a file that is no source changes nothing; a new source file calls for a walk",
      async () => {
        await Deno.writeTextFile(`${dirs[4]}/notes.txt`, "hello");
        assert(await scope.barrier());
        assert(!scope.stale && scope.dirty.size === 0);
        await Deno.writeTextFile(`${dirs[4]}/new.py`, "y = 1\n");
        assert(await scope.barrier());
        assert(scope.stale);
        scope.stale = false;
      },
    );

    await t.step("a new directory calls for a walk", async () => {
      await Deno.mkdir(`${dirs[5]}/sub`);
      assert(await scope.barrier());
      assert(scope.stale);
      scope.stale = false;
    });

    await t.step("a burst past Deno's queue while the thread sleeps calls for a walk", async () => {
      const burst = new Deno.Command("sh", {
        args: ["-c", `for d in ${root.path}/d*; do echo 'x = 3' >> "$d/m.py"; done`],
      }).spawn();
      // Sleep as a tool worker does between calls: nothing reads the watcher meanwhile.
      while (!(await burstDone(burst))) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      }
      assert(await scope.barrier());
      assert(scope.stale, `stale after ${scope.dirty.size} of 1,000 directories reported`);
    });
  } finally {
    scope.close();
  }
});

/** Whether a child has exited, without waiting for it. */
async function burstDone(child: Deno.ChildProcess): Promise<boolean> {
  const done = await Promise.race([
    child.status.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 0)),
  ]);
  return done;
}
