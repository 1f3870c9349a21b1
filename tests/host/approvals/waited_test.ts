/**
 * Time spent waiting for a human's approval is the call's `waited_ms`, never
 * its latency: through the launch users run (an approval rule and the Hook
 * API in the user's own config), a call waits while the test holds its
 * approval back, shows as "waiting for approval" meanwhile, and then its
 * log line, `toolhost log`, `get_host_performance` and the Hook API's
 * events keep the wait apart from the call's own time.
 *
 * The checks are orderings that hold however slow the machine: the host's
 * wait contains the one the test imposed (it began before the question was
 * announced and ended after the answer was sent), and the call's own time
 * plus its wait fit in what the client saw. A latency that counted the wait
 * would break the second as soon as the imposed wait outlasts the overhead.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { cliRun, tempDir, textOf } from "../../_helpers.ts";
import { type LaunchedHost, launchHost, waitForStderr } from "../../_mcp.ts";
import { HookClient } from "../../../mod.ts";

/** How long the test holds each approval back. */
const IMPOSED_MS = 300;
/** What two processes' clocks may differ by in their granularity (ms). */
const CLOCK_SLACK_MS = 2;

/** The Hook API of a launched host: its URL from the start-up line, its token from the state directory. */
async function hooksOf(host: LaunchedHost, root: string): Promise<HookClient> {
  const said = await waitForStderr(host.session, /Hook API and dashboard at http:\/\/\S+\/ /);
  const url = /Hook API and dashboard at (http:\/\/\S+\/) /.exec(said)![1]!;
  const token = (await Deno.readTextFile(`${root}/.toolhost/hooks-token`)).trim();
  return new HookClient(url, { token });
}

/** One call that waits while the test holds its approval back: what the client saw and the test imposed. */
async function heldCall(
  host: LaunchedHost,
  hooks: HookClient,
  args: Record<string, unknown>,
  approve: boolean,
): Promise<{ total: number; imposed: number; text: string; recent: Record<string, unknown> }> {
  const cursor = (await hooks.events()).cursor;
  const started = performance.now();
  const call = host.call("write_file", args);
  const asked = await hooks.waitForEvent("approval_asked", { after: cursor });
  const heldFrom = performance.now();
  // The call shows as waiting (it is marked so before the question is announced).
  const { sessions } = await hooks.session();
  const recent = sessions.flatMap((each) => each.recent as Array<Record<string, unknown>>)
    .filter((each) => each.tool === "write_file").at(-1)!;
  await new Promise((resolve) => setTimeout(resolve, IMPOSED_MS));
  const heldTo = performance.now();
  const id = String(asked.data.id);
  if (approve) await hooks.approve(id, { args_hash: String(asked.data.args_hash) });
  else await hooks.deny(id, "not now");
  const text = textOf(await call);
  return { total: performance.now() - started, imposed: heldTo - heldFrom, text, recent };
}

Deno.test("a wait for approval is the call's waited_ms, apart from its latency everywhere", async (t) => {
  await using root = await tempDir();
  await using host = await launchHost({
    roots: [root.path],
    userFile: { approvals: [{ tools: ["write_file"] }], hooks: { port: 0 } },
  });
  const hooks = await hooksOf(host, root.path);
  const cursor = (await hooks.events()).cursor;
  const approved = await heldCall(host, hooks, { path: "a.txt", content: "one\n" }, true);
  const denied = await heldCall(host, hooks, { path: "b.txt", content: "two\n" }, false);

  await t.step("while it waits, the call shows as waiting for approval", () => {
    assertEquals(approved.recent.outcome, "waiting for approval");
    assertEquals(denied.recent.outcome, "waiting for approval");
    assertStringIncludes(approved.text, "a.txt");
    assertStringIncludes(denied.text, "approval_denied: not now");
  });

  const page = await host.call("read_interactions", { tool: "write_file" });
  const [second, first] = page.structuredContent?.interactions as Array<{
    outcome: string;
    duration_ms: number;
    waited_ms: number;
  }>;

  await t.step("the log line: waited_ms holds the wait, duration_ms the call's own time", () => {
    for (const [line, held] of [[first!, approved], [second!, denied]] as const) {
      assert(
        line.waited_ms >= held.imposed - CLOCK_SLACK_MS,
        `${line.waited_ms} < ${held.imposed}`,
      );
      assert(
        line.duration_ms + line.waited_ms <= held.total + CLOCK_SLACK_MS,
        `${line.duration_ms} + ${line.waited_ms} > ${held.total}: the wait counted twice`,
      );
    }
    assertEquals([first!.outcome, second!.outcome], ["ok", "approval_denied"]);
  });

  await t.step(
    "get_host_performance: the approved call's own time; the denied one adds none",
    async () => {
      const perf = await host.call("get_host_performance", {});
      const tools = perf.structuredContent?.tools as Record<
        string,
        { count: number; waited: number; max_ms: number }
      >;
      const stats = tools.write_file!;
      assertEquals([stats.count, stats.waited], [2, 2]);
      assert(stats.max_ms <= approved.total - approved.imposed + CLOCK_SLACK_MS, `${stats.max_ms}`);
      assertEquals(stats.max_ms, first!.duration_ms, "only the call that ran is a sample");
      assertStringIncludes(textOf(perf), "2 waited for approval (not in the latency)");
    },
  );

  await t.step(
    "the Hook API's events: waiting, resumed, and ended with the wait apart",
    async () => {
      const ended = await hooks.waitForEvent("call_ended", {
        after: cursor,
        match: (event) => event.data.tool === "write_file" && event.data.outcome === "ok",
      });
      assertEquals(ended.data.duration_ms, first!.duration_ms);
      assertEquals(ended.data.waited_ms, first!.waited_ms);
      const types = (await hooks.events(cursor)).events
        .filter((event) => event.data.call === ended.data.call).map((event) => event.type);
      assertEquals(types, ["call_started", "call_waiting", "call_resumed", "call_ended"]);
    },
  );

  await t.step("toolhost log: the duration, and the wait beside it", async () => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: cliRun(["log", "--tool", "write_file", "--root", root.path]),
      cwd: "/",
      stderr: "null",
    }).output();
    const table = new TextDecoder().decode(output.stdout);
    for (const line of [first!, second!]) {
      const waited = (line.waited_ms / 1000).toFixed(1);
      assertStringIncludes(
        table,
        `${line.duration_ms.toFixed(1)} ms (+${waited} s waiting for approval)`,
      );
    }
  });
});
