import { assertEquals } from "../../_assert.ts";
import { BriefWaits } from "../../../host/workers/_receive.ts";

/** How many of `calls` calls get a brief wait, each wait ending as `answered` says. */
function waited(waits: BriefWaits, calls: number, answered: (call: number) => boolean): number {
  let count = 0;
  for (let call = 0; call < calls; call++) {
    if (!waits.worthIt()) continue;
    count++;
    waits.ended(answered(call));
  }
  return count;
}

Deno.test("brief waits: every call gets one while they are answered", () => {
  assertEquals(waited(new BriefWaits(), 1000, () => true), 1000);
});

Deno.test("brief waits: after four unanswered in a row, ever fewer calls get one, never none for long", () => {
  const waits = new BriefWaits();
  // Four misses, then skips of 1, 2, 4, ... 64 calls, each after one more miss: 4 + 7 waits in
  // the first 4 + 7 + 127 calls, then one wait every 65 calls.
  assertEquals(waited(waits, 4 + 7 + 127, () => false), 11);
  assertEquals(waited(waits, 65 * 10, () => false), 10);
});

Deno.test("brief waits: one answered wait brings them back for every call", () => {
  const waits = new BriefWaits();
  waited(waits, 500, () => false);
  // The next wait (within 65 calls) is answered: from then on every call waits again.
  let firstAnswered = -1;
  const count = waited(waits, 65 + 100, (call) => {
    if (firstAnswered < 0) firstAnswered = call;
    return true;
  });
  assertEquals(count, 65 + 100 - firstAnswered);
});
