/**
 * The stdio transport's writer: replies go out whole and in order, written
 * synchronously only when the pipe takes them at once, so a client that stops
 * reading never stops the host's event loop (timers, cancellations, signals).
 */

import { assert, assertEquals } from "../../_assert.ts";
import { findLibc } from "../../../security/landlock.ts";

const PROBE = new URL("../../../fixtures/stdout_writer_probe.ts", import.meta.url).pathname;

/** Read a stream's text until `until` says it has what it waits for. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  until: (text: string) => boolean,
): Promise<string> {
  let text = "";
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return text;
}

for (const libc of [findLibc(), null]) {
  Deno.test(`stdout writer ${libc ? "with poll(2)" : "without libc"}: a client that does not read stops no timer, and loses nothing`, async () => {
    // 2,000 lines of 1,000 bytes: far more than a pipe holds (64 KiB) while nobody reads.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...(libc ? [`--allow-ffi=${libc}`] : []), PROBE, libc ?? "", "2000", "1000"],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    // The pipe fills at once; the timer must go on ticking while stdout is not read. A writer that
    // blocked would stop it for good: after a generous while the probe is stopped, and that fails.
    const watchdog = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const ticking = await readUntil(
      stderr,
      (text) => /tick 10\n/.test(text) || text.includes("done"),
    );
    clearTimeout(watchdog);
    assert(/tick 10\n/.test(ticking), `the event loop stopped while stdout was full: ${ticking}`);
    assert(!ticking.includes("done"), "the writes waited for the reader");
    const out = await new Response(child.stdout).text();
    await readUntil(stderr, (text) => text.includes("done"));
    await stderr.cancel();
    assertEquals((await child.status).code, 0);
    const lines = out.split("\n").filter((line) => line !== "");
    assertEquals(lines.length, 2000);
    lines.forEach((line, i) => {
      assertEquals(line.length, 999);
      assertEquals(line.slice(0, 8), String(i).padStart(8, "0"));
    });
  });
}
