/**
 * Error isolation and concurrency in the worker pool: a runaway tool is
 * stopped at its timeout and its worker replaced while other calls are
 * answered; calls go to whichever worker is free first, and calls waiting
 * when a worker is replaced run on another; a throwing tool reports
 * internal_error without internals; cancellation and progress flow through.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { denoRun, quickRun, tempDir, textOf } from "../../_helpers.ts";
import { resolvePolicy } from "../../../security/policy.ts";
import { WorkerPool } from "../../../host/workers/pool.ts";
import { createHost } from "../../../host/host.ts";
import { loadConfig } from "../../../host/config/config.ts";
import { V8_FLAGS } from "../../../host/cli/launcher.ts";

const TEST_TOOLS = new URL("../../../fixtures/tools/test_tools.ts", import.meta.url);

async function pool(root: string, options: { timeout?: number; logs?: string[] } = {}) {
  return await WorkerPool.start(await resolvePolicy({ roots: [root] }), {
    size: 2,
    registry: {},
    ripgrep: { path: null, reason: "switched off (ripgrep: off)" },
    callTimeoutMs: options.timeout ?? 60_000,
    toolsModule: TEST_TOOLS,
    logger: { log: (_level, message) => options.logs?.push(message) },
  });
}

/**
 * `test_spin`'s arguments for a runaway that spins while its test runs: its marker file is in
 * the test's root, which the test's end removes. A terminated worker's loop goes on
 * (denoland/deno#35657): without the marker it would burn a core for its whole 10 s, through the
 * tests after it.
 */
async function spinning(root: string): Promise<{ while_exists: string }> {
  const marker = `${root}/spinning`;
  await Deno.writeTextFile(marker, "");
  return { while_exists: marker };
}

/**
 * Start the pool's second worker, which starts only when a call would wait behind the first: a
 * read while the first worker sleeps runs on it. Until a read is answered while the sleep still
 * runs (on a loaded machine the sleep may reach the pool's time limit first), it tries again.
 */
async function startSecond(workers: WorkerPool): Promise<void> {
  for (;;) {
    const stop = new AbortController();
    const asleep = Promise.withResolvers<void>();
    let slept = false;
    const sleeping = workers.call("test_sleep", { ms: 60_000 }, {
      signal: stop.signal,
      onProgress: () => asleep.resolve(),
    }).finally(() => (slept = true));
    await asleep.promise;
    assertEquals(textOf((await workers.call("read_file", { path: "a.txt" })).result), "a\n");
    const onTheOther = !slept;
    stop.abort();
    await sleeping;
    if (onTheOther) return;
  }
}

Deno.test("worker pool: a runaway tool is stopped at its timeout while other calls are answered", {
  ignore: quickRun,
}, async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  const logs: string[] = [];
  const workers = await pool(root.path, { timeout: 3_000, logs });
  try {
    await startSecond(workers);
    let stopped = false;
    const runaway = workers.call("test_spin", await spinning(root.path)).finally(
      () => (stopped = true),
    );
    // While one worker spins, the other keeps answering: the reads end before the runaway does.
    for (let i = 0; i < 20; i++) {
      const { result } = await workers.call("read_file", { path: "a.txt" });
      assertEquals(textOf(result), "a\n");
    }
    assertFalse(stopped, "the reads did not wait for the runaway call");
    const { result } = await runaway;
    assertMatch(textOf(result), /^timeout: test_spin ran past its 3 s limit/);
    assert(logs.some((line) => line.includes("terminated and replaced")));
    // Counted once (metrics and the status read it); starting the second worker was no restart.
    assertEquals(workers.restarts, 1);
    // The replaced worker serves again.
    for (let i = 0; i < 4; i++) {
      assertEquals(textOf((await workers.call("read_file", { path: "a.txt" })).result), "a\n");
    }
  } finally {
    workers.close();
  }
});

Deno.test("worker pool: a call goes to the worker that is free, not behind a busy one", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  const workers = await pool(root.path);
  try {
    const order: string[] = [];
    // One worker spins for good; the other is busy for a moment, then free.
    const runaway = workers.call("test_spin", await spinning(root.path)).finally(() =>
      order.push("spin")
    );
    const brief = workers.call("test_sleep", { ms: 200 }).finally(() => order.push("sleep"));
    // Both are busy now: the read waits for the first to be free, which is the sleeping one's.
    const read = await workers.call("read_file", { path: "a.txt" }).finally(() =>
      order.push("read")
    );
    assertEquals(textOf(read.result), "a\n");
    assertEquals(textOf((await brief).result), "slept 200 ms");
    assertEquals(order, ["sleep", "read"], "the read ran on the freed worker, not after the spin");
    // The freed worker keeps serving while the other still spins.
    for (let i = 0; i < 5; i++) {
      assertEquals(textOf((await workers.call("read_file", { path: "a.txt" })).result), "a\n");
    }
    assertEquals(order.includes("spin"), false);
    workers.close();
    assertMatch(textOf((await runaway).result), /^unavailable: /);
  } finally {
    workers.close();
  }
});

Deno.test("worker pool: calls waiting when a worker is replaced on timeout run on another", {
  ignore: quickRun,
}, async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  const logs: string[] = [];
  const workers = await pool(root.path, { timeout: 2_000, logs });
  try {
    // Both workers spin: every read waits until a worker is replaced.
    const spin = await spinning(root.path);
    const runaways = [workers.call("test_spin", spin), workers.call("test_spin", spin)];
    const reads = Array.from({ length: 4 }, () => workers.call("read_file", { path: "a.txt" }));
    for (const { result } of await Promise.all(runaways)) {
      assertMatch(textOf(result), /^timeout: test_spin ran past its 2 s limit/);
    }
    for (const { result } of await Promise.all(reads)) {
      assertEquals(result.isError, undefined, textOf(result));
      assertEquals(textOf(result), "a\n");
    }
    assertEquals(logs.filter((line) => line.includes("terminated and replaced")).length, 2);
    assertEquals(workers.restarts, 2);
  } finally {
    workers.close();
  }
});

Deno.test("worker pool: a waiting call that is cancelled never runs; a check is answered by a free worker", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  const workers = await pool(root.path);
  try {
    const first = workers.call("test_spin", await spinning(root.path));
    // The second worker starts for this call (the first is busy); it says when it runs.
    const sleeping = Promise.withResolvers<void>();
    const second = workers.call("test_sleep", { ms: 60_000 }, {
      onProgress: () => sleeping.resolve(),
    });
    await sleeping.promise;
    const controller = new AbortController();
    const progress: number[] = [];
    const waiting = workers.call("test_progress", { steps: 3 }, {
      signal: controller.signal,
      onProgress: (p) => progress.push(p),
    });
    controller.abort();
    assertMatch(textOf((await waiting).result), /^cancelled: test_progress was cancelled/);
    assertEquals(progress, [], "it never ran");
    // With every worker busy, a check goes to each; the sleeping one answers between its steps.
    const changes = await workers.check([
      { path: "a.txt", mtime: 0, size: 0, shown: "not-this-version", hasText: false },
    ]);
    assertEquals(changes.map((change) => change.path), ["a.txt"]);
    workers.close();
    for (const { result } of await Promise.all([first, second])) {
      assertMatch(textOf(result), /^unavailable: /);
    }
  } finally {
    workers.close();
  }
});

Deno.test("worker pool: an exception is internal_error without internals; cancellation and progress", async () => {
  await using root = await tempDir();
  const logs: string[] = [];
  const workers = await pool(root.path, { logs });
  try {
    const thrown = (await workers.call("test_throw", {})).result;
    assertEquals(thrown.isError, true);
    assertMatch(textOf(thrown), /^internal_error: test_throw failed unexpectedly/);
    assertFalse(textOf(thrown).includes("/secret/path"));
    assert(logs.some((line) => line.includes("test_throw failed unexpectedly")));

    const controller = new AbortController();
    const sleeping = workers.call("test_sleep", { ms: 30_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const cancelled = (await sleeping).result;
    assertMatch(textOf(cancelled), /^cancelled: /);

    const seen: Array<[number, number | undefined]> = [];
    const done = await workers.call("test_progress", { steps: 5 }, {
      onProgress: (p, t) => seen.push([p, t]),
    });
    assertEquals(textOf(done.result), "done 5");
    assertEquals(seen, [[1, 5], [2, 5], [3, 5], [4, 5], [5, 5]]);
  } finally {
    workers.close();
  }
});

Deno.test("host: many concurrent calls are all answered, in any order", async () => {
  await using root = await tempDir();
  for (let i = 0; i < 50; i++) await Deno.writeTextFile(`${root.path}/f${i}.txt`, `${i}\n`);
  const config = await loadConfig({ roots: [root.path], ripgrep: "off" });
  await using host = await createHost({ config, logger: { log: () => {} } });
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => host.call("read_file", { path: `f${i % 50}.txt` })),
  );
  results.forEach((result, i) => assertEquals(textOf(result), `${i % 50}\n`));
});

Deno.test("host: a call too large for the shared mailbox reaches an idle worker, round after round", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/toolhost.json`, JSON.stringify({ workers: 1 }));
  await using host = await createHost({
    roots: [root.path],
    efferentCopy: false,
    logger: { log: () => {} },
  });
  const big = "x".repeat(400 * 1024); // over the 256 KiB box: it goes by postMessage
  for (let round = 0; round < 3; round++) {
    await new Promise((resolve) => setTimeout(resolve, 60)); // the worker is idle, blocked
    const result = await host.call("write_file", { path: `big${round}.txt`, content: big });
    assertFalse(result.isError, textOf(result));
    // How soon (the announcement in shared memory wakes the blocked worker at once, where it
    // would otherwise take up to a second) is measured by bench/idle_worker_bench.ts.
    assertEquals(await Deno.readTextFile(`${root.path}/big${round}.txt`), big);
  }
});

Deno.test("worker pool: under the served V8 flags a worker collects its garbage after a long call", async () => {
  await using root = await tempDir();
  const probe = new URL("../../../fixtures/worker_gc_probe.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: denoRun(probe, [root.path], ["-A", "--unstable-worker-options", V8_FLAGS]),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  const { during, after } = JSON.parse(new TextDecoder().decode(stdout));
  // The call held about 64 MB of small objects; left to itself, V8 still held them afterwards.
  assert(during > 50e6, `the call held ${during} bytes`);
  assert(after < during / 2, `the worker still held ${after} bytes after the call`);
});
