/**
 * Requests no host should be stopped by, sent through the launch users run
 * (`connectStdio` starts what `mcp-config` prints): oversized and too deeply
 * nested requests, replies far over the bound, and other calls meanwhile.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, errorText, resultText } from "../_mcp.ts";

const BOUND = 16_384;

async function bigTree(root: string): Promise<void> {
  for (let d = 0; d < 20; d++) {
    await Deno.mkdir(`${root}/d${d}`);
    for (let f = 0; f < 50; f++) {
      await Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, "needle and some text\n".repeat(20));
    }
  }
}

Deno.test("a request far over the size bound gets an error and the host serves on", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await using session = await connectStdio([root.path]);
  const error = await assertRejects(() =>
    session.call("write_file", { path: "big.txt", content: "x".repeat(50 * 1024 * 1024) })
  );
  assertMatch(
    errorText(error),
    /-32600.*Cannot read the request: it is \d+ bytes, over the limit of 4194304/,
  );
  assertEquals(resultText(await session.call("read_file", { path: "a.txt" })), "alpha\n");
  // Nothing of the refused request was written.
  await assertRejects(() => Deno.stat(`${root.path}/big.txt`));
  assertMatch(session.stderr(), /toolhost warn: Cannot read the request/);
});

Deno.test("arguments nested too deep are refused and the host serves on", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await using session = await connectStdio([root.path]);
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const error = await assertRejects(() => session.call("read_file", { path: deep }));
  assertMatch(String(error), /nested \d+ levels deep, over the limit of 128/);
  assertEquals(resultText(await session.call("read_file", { path: "a.txt" })), "alpha\n");
});

Deno.test("a reply far over the bound is cut with a note while other calls are answered", async () => {
  await using root = await tempDir();
  await bigTree(root.path);
  const config = `${root.path}/../bound-${crypto.randomUUID()}.json`;
  await Deno.writeTextFile(config, JSON.stringify({ limits: { maxOutputChars: BOUND } }));
  try {
    await using session = await connectStdio([root.path], { config });
    const big = session.call("grep", { pattern: "needle", limit: 2000 });
    const reads = Array.from(
      { length: 20 },
      () => session.call("read_file", { path: "d0/f0.txt" }),
    );
    const reply = await big;
    for (const read of await Promise.all(reads)) assertMatch(resultText(read), /^needle/);
    const bytes = new TextEncoder().encode(JSON.stringify(reply)).length;
    assert(bytes <= BOUND, `the reply is ${bytes} bytes`);
    assertEquals(reply.isError, undefined);
    assertMatch(resultText(reply), /\[truncated: the reply was \d+ bytes, over the bound of 16384/);
    const matches = (reply.structuredContent as { matches: unknown[] }).matches;
    assert(matches.length > 0 && matches.length < 1000, `${matches.length} matches kept`);
  } finally {
    await Deno.remove(config);
  }
});
