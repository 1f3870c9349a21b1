/**
 * The race, in the launch users run: a concurrent process swaps a directory
 * of the root for a symlink to outside, as fast as it can, while two real MCP
 * clients of the server `mcp-config` prints work in it. One reads (its
 * replies carry `[FILES UPDATED]` notices: it read a file once that the
 * other keeps changing), the other writes. Zero bytes from outside may
 * appear in any reply, notices included, and zero writes may land outside.
 */

import { assert, assertEquals } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../_mcp.ts";

const SWAPPER = new URL("../../fixtures/race_swapper.ts", import.meta.url);
const READS = 3000;
const WRITES = 2000;
const IN_FLIGHT = 8;
const OUTSIDE = "OUTSIDE-BYTES";

/** Run `count` jobs with `IN_FLIGHT` at a time. */
async function inFlight(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < count) await job(next++);
  }));
}

Deno.test("race: a directory swapped for a symlink lets no byte out through any reply, notices included, and no write out", async () => {
  await using base = await tempDir("toolhost-race-");
  const root = `${base.path}/root`;
  const outside = `${base.path}/outside`;
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.mkdir(outside);
  const lines = (word: string) => Array.from({ length: 40 }, (_, i) => `${word} ${i}`).join("\n");
  await Deno.writeTextFile(`${root}/dir/f.txt`, `${lines("inside")}\n`);
  await Deno.writeTextFile(`${root}/dir/g.txt`, `${lines("watched")}\n`);
  for (const name of ["f.txt", "g.txt"]) {
    await Deno.writeTextFile(`${outside}/${name}`, `${lines(OUTSIDE)}\n`);
  }
  const before = new Map<string, string>();
  for (const entry of Deno.readDirSync(outside)) {
    before.set(entry.name, await Deno.readTextFile(`${outside}/${entry.name}`));
  }
  await using reader = await connectStdio([root]);
  await using writer = await connectStdio([root]);
  // Read once before, so that every later reply of the reader is checked against it.
  assertEquals(
    resultText(await reader.call("read_file", { path: "dir/g.txt" })).split("\n")[0],
    "watched 0",
  );

  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", SWAPPER.pathname, root, outside, "60"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const counts = {
    reads: 0,
    readOk: 0,
    notices: 0,
    diffs: 0,
    leaks: [] as string[],
    writes: 0,
    writeOk: 0,
  };
  const check = (session: StdioSession, text: string) => {
    if (text.includes(OUTSIDE)) {
      counts.leaks.push(`${session === reader ? "reader" : "writer"}: ${text.slice(0, 300)}`);
    }
  };
  try {
    await Promise.all([
      inFlight(READS, async (i) => {
        const result = i % 2 === 0
          ? await reader.call("read_file", { path: "dir/f.txt" })
          : await reader.call("get_file_slice", { path: "dir/f.txt", start_line: 1, end_line: 40 });
        const text = resultText(result);
        counts.reads++;
        if (!result.isError) counts.readOk++;
        if (text.includes("[FILES UPDATED]")) counts.notices++;
        if (/\[FILES UPDATED\][^]*@@ -\d+/.test(text)) counts.diffs++;
        check(reader, JSON.stringify(result));
      }),
      inFlight(WRITES, async (i) => {
        const result = i % 2 === 0
          ? await writer.call("write_file", { path: `dir/w${i % 50}.txt`, content: `write ${i}\n` })
          : await writer.call("set_file_slice", {
            path: "dir/g.txt",
            start_line: 1 + (i % 40),
            end_line: 1 + (i % 40),
            content: `changed ${i}`,
            force: true,
          });
        counts.writes++;
        if (!result.isError) counts.writeOk++;
        check(writer, JSON.stringify(result));
      }),
    ]);
  } finally {
    try {
      swapper.kill("SIGTERM");
    } catch {
      // it already ended
    }
  }
  const swapperOutput = await swapper.output();
  assertEquals(
    new TextDecoder().decode(swapperOutput.stderr),
    "",
    "the swapper ran without errors",
  );
  assertEquals([counts.reads, counts.writes], [READS, WRITES]);
  assertEquals(counts.leaks, [], "replies that carried outside bytes");
  const after = new Map<string, string>();
  for (const entry of Deno.readDirSync(outside)) {
    after.set(entry.name, await Deno.readTextFile(`${outside}/${entry.name}`));
  }
  assertEquals(after, before, "nothing landed outside, nothing outside changed");
  // The race was real, and the notices were computed through it.
  assert(counts.readOk > 0 && counts.readOk < READS, `reads ok: ${counts.readOk}/${READS}`);
  assert(counts.writeOk > 0 && counts.writeOk < WRITES, `writes ok: ${counts.writeOk}/${WRITES}`);
  assert(counts.notices > 0, "the reader was told of the writer's changes");
  assert(counts.diffs > 0, "with diffs of what was read through the race");
});
