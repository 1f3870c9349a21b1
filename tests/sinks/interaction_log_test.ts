/**
 * The interaction log under load and across midnight.
 */

import { assert, assertEquals } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { createHost } from "../../host/host.ts";
import { InteractionLog } from "../../sinks/interaction_log.ts";

Deno.test("interaction log: 10,000 calls with 16 in flight leave exactly 10,000 well-formed lines", async () => {
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
  assertEquals(parsed.filter((line) => line.outcome === "not_found").length, Math.ceil(total / 7));
  assert(parsed.every((line) => line.outcome === "ok" || line.outcome === "not_found"));
  assert(text.endsWith("\n"));
});

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
  const { lines } = await log.day(started.toISOString().slice(0, 10));
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
  const { lines, skipped } = await log.day("2026-11-23");
  assertEquals(skipped, 1, "the torn line alone is skipped");
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
