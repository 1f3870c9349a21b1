import { assertEquals } from "../../_assert.ts";
import { IDLE_SPIN_MS } from "../../../host/workers/mailbox.ts";
import { IdlePolls } from "../../../host/workers/_worker_call.ts";
import type { WorkerState } from "../../../host/workers/_worker_setup.ts";

/** How many of `turns` idle turns a worker polls in, each poll ending as `caught` says. */
function polled(polls: IdlePolls, turns: number, caught: (turn: number) => boolean): number {
  let count = 0;
  for (let turn = 0; turn < turns; turn++) {
    const ms = polls.ms();
    if (ms === 0) continue;
    assertEquals(ms, IDLE_SPIN_MS);
    count++;
    polls.ended(caught(turn));
  }
  return count;
}

const afterCallOf = (ms: number) => () => ({ lastCallMs: ms }) as WorkerState;

Deno.test("idle polls: a worker polls after every short call while its polls catch the next one", () => {
  assertEquals(polled(new IdlePolls(afterCallOf(1)), 1000, () => true), 1000);
});

Deno.test("idle polls: polls that catch nothing are made ever more rarely, never stopped for good", () => {
  const polls = new IdlePolls(afterCallOf(1));
  // Four misses, then skips of 1, 2, 4, 8 and 16 turns, each after one more miss: 4 + 5 polls in
  // the first 4 + 5 + 31 turns, then one poll every 17 turns.
  assertEquals(polled(polls, 4 + 5 + 31, () => false), 9);
  assertEquals(polled(polls, 17 * 10, () => false), 10);
  // One poll that catches a call brings them back for every turn.
  let first = -1;
  const count = polled(polls, 17 + 100, (turn) => {
    if (first < 0) first = turn;
    return true;
  });
  assertEquals(count, 17 + 100 - first);
});

Deno.test("idle polls: none after a long call; before its first call a worker polls", () => {
  assertEquals(new IdlePolls(afterCallOf(51)).ms(), 0);
  assertEquals(new IdlePolls(() => undefined).ms(), IDLE_SPIN_MS);
});
