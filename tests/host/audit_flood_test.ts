/**
 * A flood of cheap calls cannot blind the audit: through the launch users
 * run (`mcp-config`, over stdio), with a config that caps the interaction
 * log small, a write is made and then 100,000 calls carrying 5 KB of junk
 * arguments each (refused: `invalid_argument`, an unknown key). The log stays within its caps on disk all along,
 * the write is still found by read_interactions, and bootstrap_body_state
 * counts every call, saying how many the cap dropped.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { resultText } from "../_mcp.ts";
import { connectRaw } from "../_raw_stdio.ts";

/** Caps far below what the flood writes (about 430 MB of log at the 4 KiB argument cap). */
const CAPS = { maxDayBytes: 1024 * 1024, maxTotalBytes: 2 * 1024 * 1024 };
const TOTAL = 100_000;
/**
 * Calls in flight at once (pipelined, as a busy client sends them). The host answers one call
 * at a time either way: 256 in flight took 31 s here, 8 took 36 s; past 10, the SDK client waits
 * on its pipe with one listener per call, and node warns of a listener leak.
 */
const IN_FLIGHT = 10;
/** The log's size on disk is sampled every this many calls. */
const SAMPLE_EVERY = 5_000;

/** The log's files as a listing sees them: name → inode and size (files gone meanwhile left out). */
async function listing(dir: string): Promise<Map<string, { ino: number | null; size: number }>> {
  const files = new Map<string, { ino: number | null; size: number }>();
  for await (const entry of Deno.readDir(dir)) {
    const info = await Deno.stat(`${dir}/${entry.name}`).catch(() => undefined);
    if (info) files.set(entry.name, { ino: info.ino, size: info.size });
  }
  return files;
}

/**
 * Bytes of the log's files on disk, in all and by day. The files are listed and measured one
 * after another while the host writes, so a listing that a compaction crossed (a rewrite renamed
 * over a segment, or removed one) could add a segment's size from before it to the others' from
 * after it. Listed again until no file was replaced or removed in between: sealed segments do not
 * change, and the files that grow were measured earlier than the second listing, so a sample is
 * never more than was on disk at its end.
 */
async function logBytes(dir: string): Promise<{ total: number; days: Map<string, number> }> {
  let files = await listing(dir);
  for (;;) {
    const again = await listing(dir);
    const same = [...files].every(([name, { ino }]) => again.get(name)?.ino === ino);
    if (same) break;
    files = again;
  }
  const days = new Map<string, number>();
  let total = 0;
  for (const [name, { size }] of files) {
    total += size;
    const day = name.slice(0, 10);
    days.set(day, (days.get(day) ?? 0) + size);
  }
  return { total, days };
}

Deno.test("100,000 calls with 5 KB of junk arguments each: the log stays within its caps, the write made before them is found and every call is counted", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const config = `${outside.path}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ log: CAPS }));
  // The launch connectStdio makes, with a lean client: the SDK client's checks of 100,000 replies
  // cost the test process about 18 CPU-seconds, the lean client about 9.
  await using session = await connectRaw([root.path], { config });
  const dir = `${root.path}/.toolhost/interactions`;
  const day = new Date().toISOString().slice(0, 10);

  const wrote = await session.call("write_file", {
    path: "audit.txt",
    content: "written before the flood\n",
  });
  assertFalse(wrote.isError, resultText(wrote));

  // todo_read runs in the host's own process; a call with a key it does not take is refused there
  // and logged like any call, arguments and all: the cheapest flood.
  const junk = { junk: "j".repeat(5 * 1024) };
  let next = 0;
  let failed = 0;
  let largest = 0;
  const overDay: string[] = [];
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < TOTAL) {
      const i = next++;
      const answer = await session.call("todo_read", junk);
      if (!resultText(answer).startsWith("invalid_argument: ")) failed++;
      if (i % SAMPLE_EVERY === 0) {
        const sample = await logBytes(dir);
        largest = Math.max(largest, sample.total);
        for (const [each, bytes] of sample.days) {
          if (bytes > CAPS.maxDayBytes) overDay.push(`${each}: ${bytes}`);
        }
      }
    }
  }));
  assertEquals(failed, 0);
  const after = await logBytes(dir);
  largest = Math.max(largest, after.total);
  assert(largest <= CAPS.maxTotalBytes, `the log reached ${largest} bytes on disk`);
  assertEquals(overDay, [], "no day's files passed the day cap");

  const found = await session.call("read_interactions", { tool: "write_file" });
  assertFalse(found.isError, resultText(found));
  const page = found.structuredContent as {
    interactions: Array<{ tool: string; outcome: string; args: { path?: string } }>;
    dropped: { calls: number; write: number };
  };
  assertEquals(page.interactions.length, 1, resultText(found));
  assertEquals(page.interactions[0]!.args.path, "audit.txt");
  assertEquals(page.interactions[0]!.outcome, "ok");
  assertEquals(page.dropped.write, 0, "no write was dropped");

  const state = await session.call("bootstrap_body_state", {});
  const today = (state.structuredContent as {
    today: {
      day: string;
      total: number;
      logged: number;
      dropped: { calls: number; read: number; write: number };
      by_tool: Record<string, number>;
    };
  }).today;
  assert(today.dropped.calls > TOTAL / 2, `${today.dropped.calls} calls dropped`);
  assertEquals(today.logged + today.dropped.calls, today.total);
  assertMatch(
    resultText(state),
    /: \d+ calls \(\d+ dropped by the log's size cap: 0 read-only, \d+ failed, 0 writes/,
  );
  if (today.day === day) {
    // The write, the flood and read_interactions; bootstrap_body_state is logged after it answers.
    assertEquals(today.total, TOTAL + 2);
    assertEquals(today.by_tool, { write_file: 1, todo_read: TOTAL, read_interactions: 1 });
  } else {
    // The test ran across a UTC midnight: today holds only the calls made after it.
    assert(today.total > 0 && today.total <= TOTAL + 2);
  }
});
