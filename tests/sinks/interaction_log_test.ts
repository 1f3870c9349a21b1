/**
 * The interaction log under load and across midnight; read back as streams
 * (line and chunk sizes made small, so that what holds for a day file
 * larger than a string holds here for a few kilobytes); and kept under its
 * size caps, read-only calls going first and every drop written down.
 */

import { assert, assertEquals, assertRejects } from "../_assert.ts";
import { quickRun, tempDir } from "../_helpers.ts";
import { createHost } from "../../host/host.ts";
import { trustStateDir } from "../../host/state/state_dir.ts";
import {
  type Interaction,
  InteractionLog,
  type InteractionLogOptions,
} from "../../sinks/interaction_log.ts";

/** Every call of a day, read back as a stream. */
async function dayLines(log: InteractionLog, day: string) {
  const lines: Interaction[] = [];
  const scan = await log.scanDay(day, (line) => lines.push(line));
  return { lines, ...scan };
}

/** Only `write_file` writes, in these tests. */
const WRITES = (tool: string) => tool === "write_file";

/** Log one finished call. */
function logCall(
  log: InteractionLog,
  tool: string,
  at: number,
  outcome = "ok",
  args: unknown = { path: "src/some/file.ts" },
): void {
  const text = outcome === "ok" ? "done" : `${outcome}: refused`;
  log.after({ tool, args, session: "s", client: "c", started: new Date(at) }, {
    result: { isError: outcome !== "ok", content: [{ type: "text", text }] },
    paths: ["src/some/file.ts"],
    durationMs: 1,
  });
}

/** Bytes of every file in the log's folder (temporary ones included). */
async function diskBytes(dir: string): Promise<number> {
  let bytes = 0;
  for await (const entry of Deno.readDir(dir)) {
    bytes += (await Deno.stat(`${dir}/${entry.name}`)).size;
  }
  return bytes;
}

/** Every line of every file of the log's folder, parsed. */
async function rawLines(dir: string): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for await (const entry of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(`${dir}/${entry.name}`);
    for (const line of text.split("\n")) if (line !== "") lines.push(JSON.parse(line));
  }
  return lines;
}

/** A log in a fresh folder with small caps. */
function smallLog(stateDir: string, options: Partial<InteractionLogOptions> = {}): InteractionLog {
  return new InteractionLog({
    stateDir,
    maxDayBytes: 32 * 1024,
    maxTotalBytes: 1024 * 1024,
    writes: WRITES,
    now: () => new Date("2026-11-23T23:00:00Z"),
    ...options,
  });
}

const T0 = Date.parse("2026-11-23T09:00:00.000Z");

Deno.test(
  "interaction log: 10,000 calls with 16 in flight leave exactly 10,000 well-formed lines",
  { ignore: quickRun },
  async () => {
    await using root = await tempDir();
    await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
    await using host = await createHost({
      roots: [root.path],
      ripgrep: "off",
      logger: { log: () => {} },
    });
    const total = 10_000;
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < total) {
        const i = next++;
        await host.call(i % 3 === 0 ? "read_file" : "get_file_info", {
          path: i % 7 === 0 ? "missing.txt" : "a.txt",
        }, {
          session: `s${i % 4}`,
          client: "load",
        });
      }
    }));
    await host.flush();
    const day = new Date().toISOString().slice(0, 10);
    const text = await Deno.readTextFile(`${root.path}/.toolhost/interactions/${day}.jsonl`);
    const lines = text.split("\n").filter((line) => line !== "");
    assertEquals(lines.length, total);
    const parsed = lines.map((line) => JSON.parse(line));
    for (const line of parsed) {
      for (
        const key of [
          "ts",
          "session",
          "client",
          "tool",
          "args",
          "outcome",
          "duration_ms",
          "result_bytes",
          "paths",
        ]
      ) {
        assert(key in line, `${key} in ${JSON.stringify(line)}`);
      }
    }
    assertEquals(
      parsed.filter((line) => line.outcome === "not_found").length,
      Math.ceil(total / 7),
    );
    assert(parsed.every((line) => line.outcome === "ok" || line.outcome === "not_found"));
    assert(text.endsWith("\n"));
  },
);

Deno.test("interaction log: calls across a UTC midnight land in the right day files (injected clock)", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  let clock = Date.parse("2026-11-23T23:59:59.000Z");
  await using host = await createHost({
    roots: [root.path],
    ripgrep: "off",
    logger: { log: () => {} },
    now: () => new Date(clock),
  });
  for (let i = 0; i < 30; i++) {
    await host.call("get_file_info", { path: "a.txt" });
    clock += 100; // 3 s in all: 10 calls before midnight, 20 after
  }
  await host.flush();
  const dir = `${root.path}/.toolhost/interactions`;
  const before = (await Deno.readTextFile(`${dir}/2026-11-23.jsonl`)).trim().split("\n");
  const after = (await Deno.readTextFile(`${dir}/2026-11-24.jsonl`)).trim().split("\n");
  assertEquals(before.length, 10);
  assertEquals(after.length, 20);
  assert(before.every((line) => JSON.parse(line).ts.startsWith("2026-11-23T23:59:59")));
  assert(after.every((line) => JSON.parse(line).ts.startsWith("2026-11-24T00:00:0")));
});

Deno.test("interaction log: arguments are capped and secret keys redacted", async () => {
  await using dir = await tempDir();
  const log = new InteractionLog({ stateDir: dir.path, maxArgBytes: 200, redactKeys: ["pin"] });
  const started = new Date();
  const result = { content: [{ type: "text", text: "ok" }] };
  log.after({
    tool: "t",
    args: {
      path: "a",
      api_key: "k-123",
      nested: { password: "p", env: { GITHUB_TOKEN: "ghp" } },
      headers: [{ "X-Auth-Token": "t" }],
      card_pin: 1234,
    },
    session: "s",
    client: "c",
    started,
  }, {
    result,
    paths: [],
    durationMs: 1,
  });
  log.after({
    tool: "t",
    args: { content: "x".repeat(10_000) },
    session: "s",
    client: "c",
    started,
  }, {
    result,
    paths: [],
    durationMs: 1,
  });
  const { lines } = await dayLines(log, started.toISOString().slice(0, 10));
  assertEquals(lines[0]!.args, {
    path: "a",
    api_key: "[redacted]",
    nested: { password: "[redacted]", env: { GITHUB_TOKEN: "[redacted]" } },
    headers: [{ "X-Auth-Token": "[redacted]" }],
    card_pin: "[redacted]",
  }, "configured keys add to the defaults; names containing a key are covered");
  const capped = lines[1]!.args as { _truncated: boolean; preview: string };
  assertEquals(capped._truncated, true);
  assertEquals(capped.preview.length, 200);
});

Deno.test("interaction log: a torn last line is skipped and counted, and the next append does not join it", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "a\n");
  const dir = `${root.path}/.toolhost/interactions`;
  await Deno.mkdir(dir, { recursive: true });
  // Made by this host (else a log it finds at start is set aside, unread).
  await trustStateDir(`${root.path}/.toolhost`, { logger: { log: () => {} } });
  const clock = Date.parse("2026-11-23T10:00:00.000Z");
  // What a crash mid-append leaves: a whole line, then half of one, no newline.
  await Deno.writeTextFile(
    `${dir}/2026-11-23.jsonl`,
    `${JSON.stringify({ ts: "2026-11-23T09:00:00.000Z", tool: "read_file", paths: [] })}\n` +
      '{"ts":"2026-11-23T09:30:00.000Z","tool":"gre',
  );
  await using host = await createHost({
    roots: [root.path],
    ripgrep: "off",
    logger: { log: () => {} },
    now: () => new Date(clock),
  });
  await host.call("get_file_info", { path: "a.txt" });
  await host.flush();
  const log = new InteractionLog({ stateDir: `${root.path}/.toolhost` });
  const { lines, skipped } = await dayLines(log, "2026-11-23");
  assertEquals(skipped.malformed, 1, "the torn line alone is skipped");
  assertEquals(lines.map((line) => line.tool), ["read_file", "get_file_info"]);
  assertEquals(lines[1]!.outcome, "ok");
});

Deno.test("interaction log: day files older than the retention are deleted when a new day starts", async () => {
  await using dir = await tempDir();
  const days = `${dir.path}/interactions`;
  await Deno.mkdir(days, { recursive: true });
  for (const day of ["2026-11-10", "2026-11-20", "2026-11-21", "2026-11-22"]) {
    await Deno.writeTextFile(`${days}/${day}.jsonl`, "");
  }
  await Deno.writeTextFile(`${days}/2026-11-20.3.jsonl`, "");
  await Deno.writeTextFile(`${days}/notes.txt`, "not a day file");
  const log = new InteractionLog({
    stateDir: dir.path,
    retentionDays: 2,
    now: () => new Date("2026-11-23T08:00:00Z"),
  });
  log.after({
    tool: "t",
    args: {},
    session: "s",
    client: "c",
    started: new Date("2026-11-23T08:00:00Z"),
  }, { result: { content: [] }, paths: [], durationMs: 1 });
  await log.flush();
  const left = [];
  for await (const entry of Deno.readDir(days)) left.push(entry.name);
  assertEquals(left.sort(), [
    "2026-11-21.jsonl",
    "2026-11-22.jsonl",
    "2026-11-23.jsonl",
    "notes.txt",
  ]);
});

Deno.test("interaction log: a day is read as a stream; malformed, over-long and unreadable parts are counted by why", async (t) => {
  await using dir = await tempDir();
  const days = `${dir.path}/interactions`;
  await Deno.mkdir(days, { recursive: true });
  const good = (ts: string, tool: string) =>
    `${JSON.stringify({ ts, tool, outcome: "ok", paths: [], args: { note: "x".repeat(120) } })}\n`;
  // Sealed segment 1, then the active file: read in that order, as one day.
  await Deno.writeTextFile(
    `${days}/2026-11-23.1.jsonl`,
    good("2026-11-23T01:00:00.000Z", "first") +
      `${
        JSON.stringify({
          ts: "2026-11-23T01:30:00.000Z",
          tool: "huge",
          outcome: "ok",
          paths: [],
          args: "y".repeat(5000),
        })
      }\n` +
      "{not json\n" + '{"hello":1}\n',
  );
  await Deno.writeTextFile(
    `${days}/2026-11-23.jsonl`,
    good("2026-11-23T02:00:00.000Z", "second") + '{"ts":"2026-11-23T03:00:00.000Z","tool":"gre',
  );
  const reader = { maxLineBytes: 600, chunkBytes: 64 };
  const now = () => new Date("2026-11-23T12:00:00Z");

  await t.step(
    "lines past the line limit are passed over unread, counted as too long",
    async () => {
      const log = new InteractionLog({ stateDir: dir.path, reader, now });
      const { lines, calls, skipped } = await dayLines(log, "2026-11-23");
      assertEquals(lines.map((line) => line.tool), ["first", "second"]);
      assertEquals(calls, 2);
      assertEquals(skipped, { malformed: 3, too_long: 1, unreadable: 0 });
      const page = await log.query({ limit: 10 });
      assertEquals(page.interactions.map((line) => line.tool), ["second", "first"]);
      assertEquals(page.skipped, { malformed: 3, too_long: 1, unreadable: 0 });
      assertEquals(page.skipped_lines, 4);
      assertEquals(page.days, ["2026-11-23"]);
    },
  );

  await t.step("with the default limit the same line is read", async () => {
    const log = new InteractionLog({ stateDir: dir.path, reader: { chunkBytes: 64 }, now });
    const { lines, skipped } = await dayLines(log, "2026-11-23");
    assertEquals(lines.map((line) => line.tool), ["first", "huge", "second"]);
    assertEquals(skipped.too_long, 0);
  });

  await t.step("a file that cannot be read is counted, and the others still read", async () => {
    // Opening a directory succeeds; reading it fails.
    await Deno.mkdir(`${days}/2026-11-23.2.jsonl`);
    const log = new InteractionLog({ stateDir: dir.path, reader, now });
    const { lines, skipped } = await dayLines(log, "2026-11-23");
    assertEquals(lines.map((line) => line.tool), ["first", "second"]);
    assertEquals(skipped.unreadable, 1);
  });
});

Deno.test("interaction log: a long read is cancelled where it stands, and reports progress until then", async () => {
  await using dir = await tempDir();
  const days = `${dir.path}/interactions`;
  await Deno.mkdir(days, { recursive: true });
  const line = (i: number) =>
    `${
      JSON.stringify({
        ts: new Date(T0 + i).toISOString(),
        tool: "t",
        outcome: "ok",
        paths: [],
        args: { i },
      })
    }\n`;
  await Deno.writeTextFile(
    `${days}/2026-11-23.jsonl`,
    Array.from({ length: 2000 }, (_, i) => line(i)).join(""),
  );
  const total = (await Deno.stat(`${days}/2026-11-23.jsonl`)).size;
  // A turn of the event loop (and a progress report) after every 1 KiB.
  const log = new InteractionLog({
    stateDir: dir.path,
    reader: { chunkBytes: 1024, yieldEveryMs: 0 },
    now: () => new Date("2026-11-23T12:00:00Z"),
  });
  const controller = new AbortController();
  const progress: number[] = [];
  let visited = 0;
  const stop = new Error("stopped by the test");
  await assertRejects(
    () =>
      log.scanDay("2026-11-23", () => visited++, {
        signal: controller.signal,
        onProgress: (read, of) => {
          assertEquals(of, total);
          progress.push(read);
          if (read >= 4096) controller.abort(stop);
        },
      }),
    Error,
    "stopped by the test",
  );
  assertEquals(progress.at(-1), 4096, "it stopped at the first turn after the abort");
  assert(visited > 0 && visited < 2000, `${visited} of 2000 calls visited`);
  const query = new AbortController();
  query.abort(stop);
  await assertRejects(() => log.query({ limit: 5 }, { signal: query.signal }), Error, "stopped");
});

Deno.test("interaction log: over its day cap it drops the oldest read-only calls first, keeps writes and failures, and records the drop", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path);
  logCall(log, "write_file", T0);
  logCall(log, "read_file", T0 + 1, "path_denied");
  const total = 3000;
  for (let i = 0; i < total; i++) {
    logCall(log, "read_file", T0 + 2 + i);
    if (i % 20 === 19) await log.flush();
  }
  await log.flush();
  const folder = `${dir.path}/interactions`;
  assert(await diskBytes(folder) <= 32 * 1024, `${await diskBytes(folder)} bytes on disk`);
  const { lines, calls, dropped } = await dayLines(log, "2026-11-23");
  assertEquals(calls + dropped.calls, total + 2, "every call is kept or counted");
  assert(lines.some((line) => line.tool === "write_file"), "the oldest write is kept");
  assert(lines.some((line) => line.outcome === "path_denied"), "the oldest failure is kept");
  assertEquals(dropped.read, dropped.calls, "only read-only successes went");
  assertEquals(dropped.by_tool, { read_file: dropped.calls });
  assertEquals(dropped.why, { day_cap: dropped.calls });
  const kept = lines.filter((line) => line.tool === "read_file" && line.outcome === "ok");
  assert(dropped.to! < kept[0]!.ts, "the oldest went first");
  assertEquals(kept.at(-1)!.ts, new Date(T0 + 2 + total - 1).toISOString(), "the newest stayed");
  // The drop itself is a line in the day's files: how many calls and bytes, and why.
  const records = (await rawLines(folder)).filter((line) => "dropped" in line);
  assert(records.length >= 1);
  const record = records[0]! as { day: string; dropped: { calls: number; bytes: number } };
  assertEquals(record.day, "2026-11-23");
  assert(record.dropped.calls > 0 && record.dropped.bytes > record.dropped.calls * 100);
  await log.close();
});

Deno.test("interaction log: a burst in one batch waits for compaction to make room: the oldest reads go, writes get in", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path);
  // One synchronous burst: a single batch of about 250 KB against a 32 KiB cap.
  logCall(log, "write_file", T0);
  for (let i = 0; i < 1000; i++) logCall(log, "read_file", T0 + 1 + i);
  logCall(log, "write_file", T0 + 2000);
  await log.flush();
  assert(await diskBytes(`${dir.path}/interactions`) <= 32 * 1024);
  const { lines, calls, dropped } = await dayLines(log, "2026-11-23");
  assertEquals(calls + dropped.calls, 1002);
  assertEquals(lines.filter((line) => line.tool === "write_file").length, 2, "both writes kept");
  assertEquals(dropped.write, 0);
  assert(dropped.read > 500, `${dropped.read} reads dropped`);
  const reads = lines.filter((line) => line.tool === "read_file");
  assertEquals(reads.at(-1)!.ts, new Date(T0 + 1000).toISOString(), "the newest read stayed");
  assert(dropped.to! < reads[0]!.ts, "the oldest went");
  await log.close();
});

Deno.test("interaction log: a burst too large to hold is not written past the cap, counted, and a write still gets in", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path);
  // About 1.5 MB in one batch: more than is ever held (1 MiB) waiting for room.
  for (let i = 0; i < 6000; i++) logCall(log, "read_file", T0 + i);
  logCall(log, "write_file", T0 + 6000);
  await log.flush();
  assert(await diskBytes(`${dir.path}/interactions`) <= 32 * 1024);
  const { lines, calls, dropped } = await dayLines(log, "2026-11-23");
  assertEquals(calls + dropped.calls, 6001);
  assertEquals(lines.filter((line) => line.tool === "write_file").length, 1, "the write got in");
  assertEquals(dropped.write, 0);
  assert(dropped.read > 5000, `${dropped.read} reads dropped`);
  await log.close();
});

Deno.test("interaction log: over its total cap it drops from the oldest day first", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path, { maxDayBytes: 64 * 1024, maxTotalBytes: 64 * 1024 });
  const dayStart = ["2026-11-21", "2026-11-22", "2026-11-23"].map((day) =>
    Date.parse(`${day}T08:00:00Z`)
  );
  for (const start of dayStart) {
    logCall(log, "write_file", start);
    for (let i = 1; i <= 100; i++) logCall(log, "read_file", start + i);
    await log.flush();
  }
  assert(await diskBytes(`${dir.path}/interactions`) <= 64 * 1024);
  const oldest = await dayLines(log, "2026-11-21");
  const newest = await dayLines(log, "2026-11-23");
  assert(oldest.dropped.read > 50, "the oldest day's reads went");
  assertEquals(oldest.dropped.why, { total_cap: oldest.dropped.calls });
  assert(oldest.lines.some((line) => line.tool === "write_file"), "its write stayed");
  assertEquals(newest.calls, 101, "the newest day is whole");
  assertEquals(newest.dropped.calls, 0);
  const page = await log.query({
    since: new Date("2026-11-21T00:00:00Z"),
    until: new Date("2026-11-23T23:00:00Z"),
    limit: 200,
    tool: "write_file",
  });
  assertEquals(page.interactions.length, 3, "every write is still found");
  assertEquals(
    page.dropped.calls,
    oldest.dropped.calls + (await dayLines(log, "2026-11-22")).dropped.calls,
  );
  await log.close();
});

Deno.test("interaction log: when only writes are left, the oldest writes go and the drop record says so", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path);
  for (let i = 0; i < 1000; i++) {
    logCall(log, "write_file", T0 + i);
    if (i % 20 === 19) await log.flush();
  }
  await log.flush();
  assert(await diskBytes(`${dir.path}/interactions`) <= 32 * 1024);
  const { lines, calls, dropped } = await dayLines(log, "2026-11-23");
  assertEquals(calls + dropped.calls, 1000);
  assertEquals(dropped.write, dropped.calls);
  assert(dropped.write > 0);
  assertEquals(lines.at(-1)!.ts, new Date(T0 + 999).toISOString(), "the newest write stayed");
  assert(dropped.to! < lines[0]!.ts, "the oldest went");
  await log.close();
});

Deno.test("interaction log: a log left over its cap by an earlier run is brought under it at the next write", async () => {
  await using dir = await tempDir();
  const days = `${dir.path}/interactions`;
  await Deno.mkdir(days, { recursive: true });
  const line = (i: number) =>
    `${
      JSON.stringify({
        ts: new Date(T0 + i).toISOString(),
        session: "s",
        client: "c",
        tool: "read_file",
        outcome: "ok",
        writes: false,
        duration_ms: 1,
        result_bytes: 1,
        paths: [],
        args: { i },
      })
    }\n`;
  await Deno.writeTextFile(
    `${days}/2026-11-22.jsonl`,
    Array.from({ length: 2000 }, (_, i) => line(i)).join(""),
  );
  const log = smallLog(dir.path);
  logCall(log, "write_file", T0 + 86_400_000);
  await log.flush();
  assert(await diskBytes(days) <= 32 * 1024);
  const before = await dayLines(log, "2026-11-22");
  assertEquals(before.calls + before.dropped.calls, 2000);
  await log.close();
});

Deno.test("interaction log: a query reads days newest first while they fit its budget, and names those it left", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path, { maxDayBytes: 1024 * 1024 });
  for (const day of ["2026-11-21", "2026-11-22", "2026-11-23"]) {
    for (let i = 0; i < 10; i++) logCall(log, "read_file", Date.parse(`${day}T08:00:00Z`) + i);
  }
  await log.flush();
  const dayBytes = (await Deno.stat(`${dir.path}/interactions/2026-11-23.jsonl`)).size;
  const window = {
    since: new Date("2026-11-21T00:00:00Z"),
    until: new Date("2026-11-23T23:00:00Z"),
    limit: 100,
  };
  const page = await log.query(window, { maxScanBytes: 2 * dayBytes + 10 });
  assertEquals(page.days, ["2026-11-23", "2026-11-22"]);
  assertEquals(page.unread_days, ["2026-11-21"]);
  assertEquals(page.interactions.length, 20);
  const tight = await log.query(window, { maxScanBytes: 1 });
  assertEquals(tight.days, ["2026-11-23"], "at least one day is read");
  const whole = await log.query(window);
  assertEquals(whole.unread_days, []);
  assertEquals(whole.interactions.length, 30);
  await log.close();
});

Deno.test("interaction log: a flood whose reads are all shed leaves drop records that are merged, not the day's writes dropped", async () => {
  await using dir = await tempDir();
  const log = smallLog(dir.path);
  logCall(log, "write_file", T0);
  // A flood that never waits for the log: the writer seals new segments while compaction runs.
  const total = 20_000;
  for (let i = 0; i < total; i++) {
    logCall(log, "read_file", T0 + 1 + i, "ok", {
      path: "src/some/file.ts",
      junk: "j".repeat(200),
    });
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await log.flush();
  const { lines, calls, dropped } = await dayLines(log, "2026-11-23");
  assertEquals(calls + dropped.calls, total + 1, "every call is kept or counted");
  assert(
    lines.some((line) => line.tool === "write_file"),
    `the write was dropped: ${JSON.stringify(dropped)}`,
  );
  assertEquals(dropped.write, 0);
  await log.close();
});
