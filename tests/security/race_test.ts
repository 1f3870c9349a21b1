/**
 * The race: a concurrent process swaps a directory of the root for a symlink
 * to outside, as fast as it can, while thousands of reads and writes run
 * through the host. Zero reads may return outside content and zero writes
 * may land outside.
 */

import { assert, assertEquals } from "../_assert.ts";
import { tempDir, testHost, textOf } from "../_helpers.ts";

const SWAPPER = new URL("../../fixtures/race_swapper.ts", import.meta.url);
const READS = 3000;
const WRITES = 1500;
const CONCURRENCY = 16;

Deno.test("race: swapping a directory for a symlink lets no read or write escape", async () => {
  await using base = await tempDir("toolhost-race-");
  const root = `${base.path}/root`;
  const outside = `${base.path}/outside`;
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${root}/dir/f.txt`, "inside\n");
  await Deno.writeTextFile(`${outside}/f.txt`, "OUTSIDE\n");
  await using host = await testHost({ roots: [root] });

  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", SWAPPER.pathname, root, outside, "30"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const counts = {
    reads: 0,
    readOk: 0,
    escapedReads: 0,
    writes: 0,
    writeOk: 0,
    writeErrors: new Set<string>(),
  };
  try {
    // Let the swapper get going.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < READS; i++) {
      jobs.push(async () => {
        const result = await host.call("read_file", { path: "dir/f.txt" });
        counts.reads++;
        if (!result.isError) counts.readOk++;
        if (textOf(result).includes("OUTSIDE")) counts.escapedReads++;
      });
    }
    for (let i = 0; i < WRITES; i++) {
      jobs.push(async () => {
        const result = await host.call("write_file", {
          path: `dir/w${i % 50}.txt`,
          content: `write ${i}\n`,
        });
        counts.writes++;
        if (!result.isError) counts.writeOk++;
        else counts.writeErrors.add(textOf(result).replace(/w\d+/, "wN").slice(0, 120));
      });
    }
    jobs.sort(() => Math.random() - 0.5);
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }));
  } finally {
    try {
      swapper.kill("SIGTERM");
    } catch {
      // it already ended
    }
  }
  const swapperOutput = await swapper.output();
  const swapperError = new TextDecoder().decode(swapperOutput.stderr);
  assertEquals(swapperError, "", "the swapper ran without errors until it was stopped");
  assertEquals(counts.reads, READS);
  assertEquals(counts.writes, WRITES);
  assertEquals(counts.escapedReads, 0, "reads that returned outside content");
  const outsideNames = [...Deno.readDirSync(outside)].map((entry) => entry.name);
  assertEquals(outsideNames, ["f.txt"], "files that landed outside");
  assertEquals(await Deno.readTextFile(`${outside}/f.txt`), "OUTSIDE\n");
  // The race was real: some calls succeeded and some were refused or missed the directory.
  assert(counts.readOk > 0 && counts.readOk < READS, `reads ok: ${counts.readOk}/${READS}`);
  assert(
    counts.writeOk > 0,
    `writes ok: ${counts.writeOk}/${WRITES}: ${[...counts.writeErrors].join(" | ")}`,
  );
});
