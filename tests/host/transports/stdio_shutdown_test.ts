/**
 * The end of a session, through the launch users run (`mcp-config`'s
 * command, started from `/` with a client's environment) and raw JSON-RPC
 * lines, so that the test can close the server's stdin and watch the
 * process: with a cancelled call still busy in one tool worker and another
 * call running in the other, closing stdin ends the process (status 0), its
 * worker threads with it, and the interaction log holds both calls. How
 * soon is measured in bench/lifecycle_bench.ts, not here.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import {
  alive,
  cancelOf,
  descendants,
  exitWithin,
  initialize,
  loggedCalls,
  longGrep,
  progressOf,
  slowTree,
  startRaw,
  waitFor,
} from "./stdio_raw.ts";

/** The longest the process may take to end once its stdin is closed (a generous bound, not the target). */
const EXIT_MS = 20_000;

Deno.test("closing stdin with a cancelled call still busy in a worker ends the process, its workers and its log", async () => {
  await using root = await tempDir();
  // Four steps of 200 files: input is closed during the second, and two more are left.
  await slowTree(root.path, 4, 200);
  // The JS walker: the whole search runs in the tool worker.
  const server = await startRaw([root.path], "off");
  await initialize(server);
  await server.send(longGrep(2));
  await waitFor(server, "progress of the first grep", progressOf(2));
  await server.send(cancelOf(2));
  await server.send(longGrep(3));
  const { pid } = server.child;
  const children = descendants(pid);
  await server.closeInput();
  const status = await exitWithin(server.child, EXIT_MS);
  assertEquals(status.code, 0, server.stderr());
  assert(!alive(pid), "the process (and every thread of it) is gone");
  assertEquals(children.filter(alive), [], "no process it started outlived it");
  assertEquals(server.messages.filter((m) => m.id === 2), [], "a cancelled call is never answered");
  // Both calls reached the log before the process ended, each with how it ended.
  const calls = (await loggedCalls(`${root.path}/.toolhost`)).filter((c) => c.tool === "grep");
  assertEquals(calls.length, 2, JSON.stringify(calls));
  for (const call of calls) assert(["cancelled", "unavailable", "ok"].includes(call.outcome));
  assert(calls.some((call) => call.outcome !== "ok"), "the cancelled call did not end as answered");
});
