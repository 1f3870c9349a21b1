/**
 * read_interactions, bootstrap_body_state and get_host_performance through
 * the host, on real day files (some written by hand to be missing, corrupt
 * or torn), with an injected clock.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { createHost } from "../../../host/host.ts";

function line(
  ts: string,
  tool: string,
  outcome = "ok",
  paths: string[] = [],
  session = "s1",
): string {
  return `${
    JSON.stringify({
      ts,
      session,
      client: "c",
      tool,
      args: {},
      outcome,
      duration_ms: 1,
      result_bytes: 10,
      paths,
    })
  }\n`;
}

Deno.test("read_interactions: filters, limit, order, missing and corrupt files, offsets, the 7-day cap", async (t) => {
  await using root = await tempDir();
  const dir = `${root.path}/.toolhost/interactions`;
  await Deno.mkdir(dir, { recursive: true });
  // "Now" is 2026-11-23T10:00Z. Yesterday's file has a corrupt line; today's ends with a torn line;
  // the day before yesterday has no file; 2026-11-14 is beyond the 7-day cap.
  await Deno.writeTextFile(
    `${dir}/2026-11-22.jsonl`,
    line("2026-11-22T08:00:00.000Z", "read_file", "ok", ["a.py"]) + "{not json\n" +
      line("2026-11-22T23:30:00.000Z", "grep", "invalid_argument"),
  );
  await Deno.writeTextFile(
    `${dir}/2026-11-23.jsonl`,
    line("2026-11-23T01:00:00.000Z", "read_file", "path_denied", ["/etc/passwd"], "s2") +
      line("2026-11-23T02:00:00.000Z", "edit_file", "ok", ["a.py"]) +
      line("2026-11-23T03:00:00.000Z", "read_file", "ok", ["b.py"]) +
      '{"ts":"2026-11-23T04:00:00.000Z","tool":"rea',
  );
  await Deno.writeTextFile(
    `${dir}/2026-11-14.jsonl`,
    line("2026-11-14T12:00:00.000Z", "read_file"),
  );
  await Deno.writeTextFile(`${dir}/2026-11-17.jsonl`, line("2026-11-17T12:00:00.000Z", "get_tree"));
  await using host = await createHost({
    roots: [root.path],
    ripgrep: "off",
    logger: { log: () => {} },
    now: () => new Date("2026-11-23T10:00:00.000Z"),
  });
  const read = async (args: Record<string, unknown>) => {
    const result = await host.call("read_interactions", args, { session: "reader", client: "t" });
    assertFalse(result.isError, textOf(result));
    return result.structuredContent as {
      interactions: Array<{ ts: string; tool: string; outcome: string }>;
      skipped_lines: number;
      window: { since: string; until: string; days: string[]; capped: boolean };
    };
  };

  await t.step(
    "the default window is today and yesterday (UTC), most recent first, corrupt and torn lines counted",
    async () => {
      const page = await read({ limit: 50 });
      assertEquals(page.interactions.map((each) => each.ts), [
        "2026-11-23T03:00:00.000Z",
        "2026-11-23T02:00:00.000Z",
        "2026-11-23T01:00:00.000Z",
        "2026-11-22T23:30:00.000Z",
        "2026-11-22T08:00:00.000Z",
      ]);
      assertEquals(page.skipped_lines, 2);
      assertEquals(page.window.days, ["2026-11-23", "2026-11-22"]);
    },
  );

  await t.step("filters compose and the limit holds", async () => {
    assertEquals((await read({ tool: "read_file", limit: 50 })).interactions.length, 3);
    assertEquals(
      (await read({ tool: "read_file", outcome: "ok", limit: 50 })).interactions.length,
      2,
    );
    assertEquals(
      (await read({ tool: "read_file", outcome: "ok", path: "a.py", limit: 50 })).interactions
        .length,
      1,
    );
    assertEquals(
      (await read({ session: "s2", limit: 50 })).interactions.map((each) => each.outcome),
      ["path_denied"],
    );
    // (read_interactions calls are logged too, at the injected "now": stop before it.)
    assertEquals(
      (await read({ until: "2026-11-23T09:00:00Z", limit: 2 })).interactions.map((each) => each.ts),
      [
        "2026-11-23T03:00:00.000Z",
        "2026-11-23T02:00:00.000Z",
      ],
    );
  });

  await t.step(
    "a `since` written at +12:00 that falls on another UTC day picks that day's file",
    async () => {
      // 2026-11-23T07:30+12:00 is 2026-11-22T19:30Z: yesterday's late line is in, its morning line is not.
      const page = await read({
        since: "2026-11-23T07:30:00+12:00",
        until: "2026-11-23T01:30:00+00:00",
        limit: 50,
      });
      assertEquals(page.interactions.map((each) => each.ts), [
        "2026-11-23T01:00:00.000Z",
        "2026-11-22T23:30:00.000Z",
      ]);
      assertEquals(page.window.since, "2026-11-22T19:30:00.000Z");
      assertEquals(page.window.days, ["2026-11-23", "2026-11-22"]);
    },
  );

  await t.step(
    "since reaches back at most 7 days, and says so; missing day files are empty",
    async () => {
      const page = await read({ since: "2026-11-01T00:00:00Z", limit: 50 });
      assert(page.window.capped);
      assertEquals(page.window.since, "2026-11-16T00:00:00.000Z");
      assert(
        page.interactions.some((each) => each.tool === "get_tree"),
        "2026-11-17 is inside the cap",
      );
      assertFalse(
        page.interactions.some((each) => each.ts.startsWith("2026-11-14")),
        "2026-11-14 is outside",
      );
      const text = textOf(await host.call("read_interactions", { since: "2026-11-01T00:00:00Z" }));
      assertStringIncludes(text, "at most 7 days");
    },
  );

  await t.step("bad times are invalid_argument", async () => {
    assertMatch(
      textOf(await host.call("read_interactions", { since: "yesterday" })),
      /^invalid_argument: /,
    );
    assertMatch(
      textOf(await host.call("read_interactions", { until: "2026-11-02T00:00:00Z" })),
      /^invalid_argument: .*at most 7 days/,
    );
    assertMatch(
      textOf(
        await host.call("read_interactions", {
          since: "2026-11-23T05:00:00Z",
          until: "2026-11-23T04:00:00Z",
        }),
      ),
      /^invalid_argument: .*after/,
    );
  });
});

Deno.test("bootstrap_body_state shows today's counts, paths, anchors and every open todo, never file contents", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/secret.txt`, "TOP-SECRET-CONTENT\n");
  await using host = await createHost({
    roots: [root.path],
    ripgrep: "off",
    logger: { log: () => {} },
  });
  await host.call("read_file", { path: "secret.txt" });
  await host.call("read_file", { path: "secret.txt" });
  await host.call("read_file", { path: "/etc/passwd" });
  await host.call("todo_write", {
    todos: [
      { content: "ship it", status: "in_progress" },
      { content: "old chore", status: "completed" },
      { content: "next step", status: "pending" },
    ],
  });
  const result = await host.call("bootstrap_body_state", {});
  const state = result.structuredContent as {
    today: { total: number; by_tool: Record<string, number>; by_outcome: Record<string, number> };
    top_paths: Array<{ path: string; calls: number }>;
    anchors: Array<{ key: string }>;
    open_todos: Array<{ number: number; content: string; status: string }>;
    roots: string[];
  };
  assertEquals(state.today.total, 4);
  assertEquals(state.today.by_tool, { read_file: 3, todo_write: 1 });
  assertEquals(state.today.by_outcome, { ok: 3, path_denied: 1 });
  assertEquals(state.top_paths[0], { path: "secret.txt", calls: 2 });
  assertEquals(state.anchors.map((anchor) => anchor.key), ["todo_state"]);
  assertEquals(state.roots, [root.path]);
  assertEquals(state.open_todos, [
    { number: 1, content: "ship it", status: "in_progress" },
    { number: 3, content: "next step", status: "pending" },
  ]);
  assertStringIncludes(textOf(result), "open todos: 2\n[>] 1. ship it\n[ ] 3. next step");
  const everything = JSON.stringify(result);
  assertFalse(everything.includes("TOP-SECRET-CONTENT"), "no file contents");
  assertFalse(everything.includes("old chore"), "no anchor bodies, no completed todos");

  const perf = await host.call("get_host_performance", {});
  const tools =
    (perf.structuredContent as { tools: Record<string, { count: number; error_rate: number }> })
      .tools;
  assertEquals(tools.read_file!.count, 3);
  assertEquals(Math.round(tools.read_file!.error_rate * 3), 1);
  assert((perf.structuredContent as { memory: { rss_bytes: number } }).memory.rss_bytes > 0);
});
