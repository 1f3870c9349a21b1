/**
 * The limit script's start mark in a run's standard error (unit): cut out
 * wherever the reads split it, found once, and nothing else lost.
 */

import { assert, assertEquals, assertFalse } from "../../_assert.ts";
import { StartMark } from "../../../host/sandbox/_start_mark.ts";
import { START_MARK } from "../../../security/sandbox.ts";
import { concatBytes } from "../../../tools/_bytes.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (parts: Uint8Array[]) => new TextDecoder().decode(concatBytes(parts));

/** The stream cut into reads at the given offsets, through a mark; what passed, and whether it was found. */
function through(stream: string, cuts: number[]): { out: string; found: number } {
  const mark = new StartMark(START_MARK);
  let found = 0;
  mark.onFound = () => found++;
  const all = bytes(stream);
  const passed: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, all.length]) {
    passed.push(mark.take(all.subarray(from, cut)));
    from = cut;
  }
  passed.push(mark.end());
  return { out: text(passed), found };
}

Deno.test("start mark: cut out however the reads split it, found once; bwrap's lines before it and the program's after it pass", () => {
  const stream = `bwrap: warning\n${START_MARK}program error\n`;
  const length = bytes(stream).length;
  for (let first = 0; first <= length; first++) {
    for (const second of [first, Math.min(length, first + 1), Math.min(length, first + 7)]) {
      const { out, found } = through(stream, [first, second]);
      assertEquals(out, "bwrap: warning\nprogram error\n", `cut at ${first}, ${second}`);
      assertEquals(found, 1);
    }
  }
});

Deno.test("start mark: a second mark is the program's output, and kept", () => {
  const { out, found } = through(`${START_MARK}${START_MARK}x`, [3]);
  assertEquals(out, `${START_MARK}x`);
  assertEquals(found, 1);
});

Deno.test("start mark: a stream without it passes whole, a partial mark at its end included", () => {
  const partial = START_MARK.slice(0, 6);
  const { out, found } = through(`bwrap: cannot mount\n${partial}`, [5]);
  assertEquals(out, `bwrap: cannot mount\n${partial}`);
  assertEquals(found, 0);
  const mark = new StartMark(START_MARK);
  assertFalse(mark.found);
  mark.take(bytes(START_MARK));
  assert(mark.found);
});
