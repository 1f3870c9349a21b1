/**
 * Writes are atomic: a process killed (SIGKILL) in the middle of writing a
 * file leaves the old or the new content, never a torn file.
 */

import { assert, assertEquals } from "../_assert.ts";
import { denoRun, quickRun, tempDir } from "../_helpers.ts";

const WRITER = new URL("../../fixtures/atomic_writer.ts", import.meta.url);
const SIZE = 16 * 1024 * 1024;

Deno.test("write_file killed mid-write leaves the old or the new content, never a torn file", {
  ignore: quickRun,
}, async () => {
  await using root = await tempDir("toolhost-atomic-");
  const seen = new Set<string>();
  const killedTemps = new Set<string>();
  // A write under way shows as a new temp file: the watcher says when one may have appeared.
  using watcher = Deno.watchFs(root.path, { recursive: false });
  for (let round = 0; round < 6; round++) {
    const child = new Deno.Command(Deno.execPath(), {
      // Not the launch users run: an in-process host with -A, killed mid-write. What is checked is
      // the file write_file leaves, which Deno's permissions and Landlock do not change.
      args: denoRun(WRITER.pathname, [root.path], ["-A", "--unstable-worker-options"]),
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.getReader();
    const { value } = await reader.read();
    assertEquals(new TextDecoder().decode(value), "ready\n");
    reader.releaseLock();
    // Kill it the moment a write is under way (its temp file exists), so the kill lands mid-write.
    await writeUnderWay(watcher, root.path, killedTemps, 5_000);
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel();
    const bytes = await Deno.readFile(`${root.path}/big.txt`);
    assertEquals(bytes.length, SIZE, `round ${round}: the file has its full size`);
    const first = bytes[0]!;
    assert(first === 0x41 || first === 0x42, `round ${round}: A or B`);
    assert(
      bytes.every((b) => b === first),
      `round ${round}: the file is all ${String.fromCharCode(first)}, not torn`,
    );
    seen.add(String.fromCharCode(first));
    const left = tempFiles(root.path).filter((name) => !killedTemps.has(name));
    assertEquals(
      left.length,
      1,
      `round ${round}: the kill landed mid-write, leaving its temp file`,
    );
    killedTemps.add(left[0]!);
  }
  // The temp files of killed writes are the only trace, and they are hidden from every tool.
  const names = [...Deno.readDirSync(root.path)].map((entry) => entry.name).filter((name) =>
    name !== ".toolhost"
  ).sort();
  assertEquals(names, ["big.txt", ...[...killedTemps].sort()].sort());
});

/**
 * Wait until a temp file that no killed write left exists in `dir` (a write is under way), or
 * `ms` have passed: look again at each event in the directory, not in a loop that would take
 * CPU from the writer.
 */
async function writeUnderWay(
  watcher: Deno.FsWatcher,
  dir: string,
  killed: ReadonlySet<string>,
  ms: number,
): Promise<void> {
  const events = watcher[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  try {
    while (!tempFiles(dir).some((name) => !killed.has(name))) {
      const next = await Promise.race([events.next(), late]);
      if (next === "late" || next.done) return;
    }
  } finally {
    clearTimeout(timer);
  }
}

function tempFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).filter((name) =>
    name.endsWith(".toolhost-tmp")
  );
}
