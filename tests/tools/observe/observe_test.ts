/**
 * read_interactions, bootstrap_body_state and get_host_performance through
 * the host, on real day files (some written by hand to be missing, corrupt
 * or torn), with an injected clock; their arguments held to sane ranges;
 * the log's caps as they show them; and host-side calls stopped by a
 * cancellation or their time limit, as worker calls are.
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
import { HostToolProvider } from "../../../host/providers/host_tools.ts";
import { trustStateDir } from "../../../host/state/state_dir.ts";
import { defineTool, type ToolResult } from "../../../tools/tool.ts";
import { z } from "zod";

const QUIET = { log: () => {} };

/** A state directory the host takes as its own (else what a test writes there is set aside). */
async function stateDir(root: string): Promise<string> {
  const dir = `${root}/.toolhost/interactions`;
  await Deno.mkdir(dir, { recursive: true });
  await trustStateDir(`${root}/.toolhost`, { logger: QUIET });
  return dir;
}

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
  const dir = await stateDir(root.path);
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
      skipped: { malformed: number; too_long: number; unreadable: number };
      dropped: { calls: number };
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
      assertEquals(page.skipped, { malformed: 2, too_long: 0, unreadable: 0 });
      assertEquals(page.dropped.calls, 0);
      assertEquals(page.window.days, ["2026-11-23", "2026-11-22"]);
      const text = textOf(await host.call("read_interactions", { limit: 1 }));
      assertStringIncludes(text, "2 log lines skipped (2 corrupt or torn)");
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

  await t.step(
    "times far ahead, absurd ones and over-long filters are invalid_argument",
    async () => {
      for (
        const args of [
          { until: "+275760-09-13T00:00:00.000Z" },
          { until: "2026-11-25T10:00:01Z" },
          { since: "2099-01-01T00:00:00Z" },
        ]
      ) {
        assertMatch(
          textOf(await host.call("read_interactions", args)),
          /^invalid_argument: Cannot read interactions (until|since) ".*": it lies more than a day after now/,
        );
      }
      // A day ahead is allowed (clocks differ); nothing is there.
      assertEquals(
        (await read({ until: "2026-11-24T09:00:00Z", limit: 1 })).interactions.length,
        1,
      );
      for (
        const args of [
          { since: "2026-11-23T00:00:00Z".padEnd(100, "0") },
          { path: "a".repeat(5000) },
          { tool: "t".repeat(300) },
          { limit: 100_000 },
        ]
      ) {
        assertMatch(textOf(await host.call("read_interactions", args)), /^invalid_argument: /);
      }
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

// The cases that need no clock, config or log of their own share one host (a host costs its
// workers' start). The time-limit case calls through a provider of its own, and comes after the
// case that counts today's calls, so that the count is that case's alone.
Deno.test("bootstrap_body_state and host-side time limits on one host", async (t) => {
  await using root = await tempDir();
  await using host = await createHost({ roots: [root.path], ripgrep: "off", logger: QUIET });

  await t.step(
    "bootstrap_body_state shows today's counts, paths, anchors and every open todo, never file contents",
    async () => {
      await Deno.mkdir(`${root.path}/bootstrap`);
      await Deno.writeTextFile(`${root.path}/bootstrap/secret.txt`, "TOP-SECRET-CONTENT\n");
      await host.call("read_file", { path: "bootstrap/secret.txt" });
      await host.call("read_file", { path: "bootstrap/secret.txt" });
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
        today: {
          total: number;
          by_tool: Record<string, number>;
          by_outcome: Record<string, number>;
        };
        top_paths: Array<{ path: string; calls: number }>;
        anchors: Array<{ key: string }>;
        open_todos: Array<{ number: number; content: string; status: string }>;
        roots: string[];
      };
      assertEquals(state.today.total, 4);
      assertEquals(state.today.by_tool, { read_file: 3, todo_write: 1 });
      assertEquals(state.today.by_outcome, { ok: 3, path_denied: 1 });
      assertEquals(state.top_paths[0], { path: "bootstrap/secret.txt", calls: 2 });
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
      const log = (perf.structuredContent as { log: { bytes: number; max_day_bytes: number } }).log;
      assertEquals(log.max_day_bytes, 64 * 1024 * 1024, "the default day cap");
      assert(log.bytes > 0);
      assertStringIncludes(textOf(perf), "interaction log ");
    },
  );

  await t.step(
    "a host-side call past the time limit is answered `timeout`, while other calls are answered meanwhile",
    async () => {
      let seen: unknown;
      const hang = defineTool({
        name: "hang",
        description: "Wait until stopped.",
        input: z.object({}),
        annotations: { readOnlyHint: true },
        run: (_input, ctx) =>
          new Promise<ToolResult>((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              seen = ctx.signal.reason;
              resolve({ content: [{ type: "text", text: "stopped late" }] });
            });
          }),
      });
      const echo = defineTool({
        name: "echo",
        description: "Say it back.",
        input: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true },
        run: ({ text }) => text,
      });
      const provider = new HostToolProvider([hang, echo], {
        policy: host.policy,
        logger: QUIET,
        callTimeoutMs: 200,
        services: {},
      });
      const hanging = provider.call("hang", {}, { session: "s", client: "c" });
      const other = await provider.call("echo", { text: "meanwhile" }, {
        session: "s",
        client: "c",
      });
      assertEquals(textOf(other.result), "meanwhile");
      const { result } = await hanging;
      assertEquals(textOf(result), "timeout: hang ran past its 0.2 s limit and was stopped");
      assertEquals(
        (seen as { code?: string }).code,
        "timeout",
        "the tool's own signal was aborted",
      );
    },
  );
});

Deno.test("over the log's cap, bootstrap_body_state counts the dropped calls and read_interactions still finds the write", async () => {
  await using root = await tempDir();
  // The user's own config, outside the root: a project's may not shorten the user's record.
  await using mine = await tempDir();
  const configFile = `${mine.path}/toolhost.json`;
  await Deno.writeTextFile(
    configFile,
    JSON.stringify({ log: { maxDayBytes: 64 * 1024, maxTotalBytes: 64 * 1024 } }),
  );
  await using host = await createHost({
    roots: [root.path],
    configFile,
    ripgrep: "off",
    logger: QUIET,
  });
  await host.call("todo_write", { todos: [{ content: "audit me", status: "pending" }] });
  // 400 read-only calls of about 1.4 KB of log each, 50 in flight: far past 64 KiB.
  const bulky = { pattern: "x".repeat(1000) };
  for (let batch = 0; batch < 8; batch++) {
    await Promise.all(Array.from({ length: 50 }, () => host.call("search_files", bulky)));
  }
  await host.flush();
  let bytes = 0;
  for await (const entry of Deno.readDir(`${root.path}/.toolhost/interactions`)) {
    bytes += (await Deno.stat(`${root.path}/.toolhost/interactions/${entry.name}`)).size;
  }
  assert(bytes <= 64 * 1024, `${bytes} bytes on disk`);

  const state = await host.call("bootstrap_body_state", {});
  const today = (state.structuredContent as {
    today: {
      total: number;
      logged: number;
      dropped: { calls: number; read: number; write: number };
      by_tool: Record<string, number>;
    };
  }).today;
  assertEquals(today.total, 401, "every call counted, dropped ones included");
  assert(today.dropped.calls > 100, `${today.dropped.calls} dropped`);
  assertEquals(today.logged + today.dropped.calls, 401);
  assertEquals(today.dropped.write, 0);
  assertEquals(today.by_tool, { todo_write: 1, search_files: 400 });
  assertMatch(
    textOf(state),
    /today \(.* UTC\): 401 calls \(\d+ dropped by the log's size cap: \d+ read-only, 0 failed, 0 writes; day cap\)/,
  );

  const found = await host.call("read_interactions", { tool: "todo_write" });
  const page = found.structuredContent as {
    interactions: Array<{ tool: string; args: unknown }>;
    dropped: { calls: number };
  };
  assertEquals(page.interactions.map((each) => each.tool), ["todo_write"]);
  assertEquals(page.interactions[0]!.args, { todos: [{ content: "audit me", status: "pending" }] });
  assertEquals(page.dropped.calls, today.dropped.calls);
  assertMatch(
    textOf(found),
    /\nin the days read, \d+ dropped by the log's size cap: \d+ read-only, 0 failed, 0 writes; day cap \(counted, not listed\)/,
  );
});

Deno.test("a host-side call is answered `cancelled` when the client cancels it, and its read stops", async () => {
  await using root = await tempDir();
  const dir = await stateDir(root.path);
  const day = new Date().toISOString().slice(0, 10);
  const line = JSON.stringify({
    ts: new Date().toISOString(),
    tool: "t",
    outcome: "ok",
    paths: [],
    args: {},
  });
  await Deno.writeTextFile(`${dir}/${day}.jsonl`, `${line}\n`.repeat(20_000));
  await using host = await createHost({ roots: [root.path], ripgrep: "off", logger: QUIET });
  const controller = new AbortController();
  const progress: number[] = [];
  const result = await host.call("read_interactions", { limit: 5 }, {
    signal: controller.signal,
    onProgress: (read) => {
      progress.push(read);
      controller.abort();
    },
  });
  assertEquals(textOf(result), "cancelled: the client cancelled the call");
  assertEquals(result.isError, true);
  // The host goes on answering (reading the same file through), and the cancelled read stays stopped.
  assertFalse((await host.call("read_interactions", { limit: 1 })).isError);
  assertEquals(progress, [0], "it was stopped as it started, and read nothing more");
});
