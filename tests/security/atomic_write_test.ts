/**
 * Writes are atomic: a process killed (SIGKILL) in the middle of writing a
 * file leaves the old or the new content, never a torn file.
 */

import { assert, assertEquals } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";

const WRITER = new URL("../../fixtures/atomic_writer.ts", import.meta.url);
const SIZE = 4 * 1024 * 1024;

Deno.test("write_file killed mid-write leaves the old or the new content, never a torn file", async () => {
  await using root = await tempDir("toolhost-atomic-");
  const seen = new Set<string>();
  for (let round = 0; round < 8; round++) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-worker-options", WRITER.pathname, root.path],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.getReader();
    const { value } = await reader.read();
    assertEquals(new TextDecoder().decode(value), "ready\n");
    reader.releaseLock();
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
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
  }
  // Leftover temp files from killed writes are the only trace (and the proof that kills landed mid-write).
  const names = [...Deno.readDirSync(root.path)].map((entry) => entry.name);
  assert(names.includes("big.txt"));
  assert(
    names.every((name) =>
      name === "big.txt" || name === ".toolhost" || name.endsWith(".toolhost-tmp")
    ),
    names.join(","),
  );
  const torn = names.filter((name) => name.endsWith(".toolhost-tmp")).length;
  assert(torn >= 1, `at least one kill landed mid-write (temp files left: ${torn})`);
});
