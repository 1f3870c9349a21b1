/**
 * Efferent copy in the launch users run: the server `mcp-config` prints,
 * with `EFFERENT_COPY_ENABLE=1` set only in the client's `env`, and real
 * subprocess sinks (fixtures/sinks/sink_server.ts): results are the same
 * with zero, one, three and faulty sinks; every sink sees one pre and one
 * post observe per call, errors included, the calls made before discovery
 * finished among them; peers of another shape and this host itself are
 * not sinks, and the server says so. The cases that compare results with
 * sinks against those with none share one run without sinks over one root
 * (a step each); every other case has its own sinks, so its own host.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, mcpConfigFor, resultText, waitForStderr } from "../_mcp.ts";
import { EfferentCopy, type ObserveChannel, PeerSink as Sink } from "../../sinks/efferent.ts";

const SINK = new URL("../../fixtures/sinks/sink_server.ts", import.meta.url).pathname;
interface SinkHealth {
  name: string;
  connected: boolean;
  last_success: string | null;
  drops: number;
  timeouts: number;
  failures: number;
}

const ENTRY = new URL("../../mod.ts", import.meta.url).pathname;
const ON = { EFFERENT_COPY_ENABLE: "1" };
/** The observe timeout where every copy must arrive: a loaded machine's HTTP round trip can take 250 ms. */
const DELIVERED_MS = 30_000;

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["read_file", { path: "a.txt" }],
  ["read_file", { path: "/etc/passwd" }],
  ["get_file_slice", { path: "a.txt" }],
  ["write_file", { path: "b.txt", content: "bee\n" }],
  ["edit_file", { path: "b.txt", old_string: "bee", new_string: "buzz" }],
  ["list_directory", { path: "." }],
  ["grep", { path: ".", pattern: "alpha" }],
  ["get_file_info", { path: "missing.txt" }],
  ["search_files", { path: ".", pattern: "*.txt" }],
];

function sink(mode: string, ...rest: string[]) {
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-write", SINK, mode, ...rest],
  };
}

/** Wait (up to 30 s) until a sink's record file has at least `count` lines. */
async function recordedAtLeast(file: string, count: number): Promise<Recorded[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const lines = await recorded(file);
    if (lines.length >= count || Date.now() > until) return lines;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A config outside the root whose `sinks.mcpJson` lists the peers (the root stays the same),
 * with other `sinks` settings if given.
 */
async function outsideConfig(
  dir: string,
  peers: Record<string, unknown>,
  sinks: Record<string, unknown> = {},
): Promise<string> {
  await Deno.writeTextFile(`${dir}/mcp.json`, JSON.stringify({ mcpServers: peers }));
  await Deno.writeTextFile(
    `${dir}/toolhost.json`,
    JSON.stringify({ sinks: { mcpJson: "mcp.json", ...sinks } }),
  );
  return `${dir}/toolhost.json`;
}

/** What {@linkcode run} waits for, and the sinks' settings. */
interface RunOptions {
  /** The good sinks' record files. */
  records?: string[];
  /** Whether the sinks' health is as the test expects. */
  settled?: (health: SinkHealth[]) => boolean;
  /** Lines per call in each record file: a pre and a post observe of each sink writing to it. */
  linesPerCall?: number;
  /**
   * `sinks.observeTimeoutMs`: where every copy must arrive (the subject is what a sink sees, not
   * how long it may take), long enough for a loaded machine; otherwise the default 250 ms.
   */
  observeTimeoutMs?: number;
}

/**
 * Run the call sequence through the launch, at once after connecting (before
 * discovery ends), and return the JSON-RPC results as text, how many sinks
 * the server found, and their health once every good sink saw every call
 * (each record file has all its lines) — the host is closed only then.
 */
async function run(
  root: string,
  peers: Record<string, unknown> | undefined,
  options: RunOptions = {},
): Promise<{ results: string[]; sinks: number; health: SinkHealth[]; stderr: string }> {
  const { records = [], settled = () => true, linesPerCall = 2 } = options;
  await Deno.writeTextFile(`${root}/a.txt`, "alpha\n");
  await Deno.remove(`${root}/b.txt`).catch(() => {});
  await using outside = await tempDir();
  const timeout = options.observeTimeoutMs;
  const config = await outsideConfig(
    outside.path,
    peers ?? {},
    timeout === undefined ? {} : { observeTimeoutMs: timeout },
  );
  await using session = await connectStdio([root], { config, env: peers ? ON : {} });
  const results: string[] = [];
  for (const [name, args] of CALLS) results.push(JSON.stringify(await session.call(name, args)));
  let sinks = 0;
  if (peers) {
    const said = await waitForStderr(session, /efferent copy: \d+ sinks?/);
    sinks = Number(said.match(/efferent copy: (\d+) sinks?/)![1]);
  }
  for (const file of records) await recordedAtLeast(file, CALLS.length * linesPerCall);
  // An observation tool: never mirrored (assertOnePreOnePost would see it), and it shows sink
  // health; asked until the health has settled as the test expects (or 30 s).
  const until = Date.now() + 30_000;
  let health: SinkHealth[];
  do {
    const state = await session.call("bootstrap_body_state");
    health = (state.structuredContent as { sinks: SinkHealth[] }).sinks;
  } while (!settled(health) && Date.now() < until && await pause(50));
  return { results, sinks, health, stderr: session.stderr() };
}

function pause(ms: number): Promise<true> {
  return new Promise((resolve) => setTimeout(() => resolve(true), ms));
}

type Recorded = {
  tool_name: string;
  result?: Record<string, unknown>;
  _meta?: unknown;
  pid?: number;
};

async function recorded(file: string): Promise<Recorded[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

function assertOnePreOnePost(lines: Recorded[], calls = CALLS): void {
  const pre = lines.filter((line) => !("result" in line)).map((line) => line.tool_name);
  const post = lines.filter((line) => "result" in line).map((line) => line.tool_name);
  const expected = calls.map(([name]) => name).sort();
  assertEquals(pre.sort(), expected, "one pre observe per call");
  assertEquals(post.sort(), expected, "one post observe per call");
}

Deno.test("efferent copy: a sink in the user's .mcp.json, switched on only in the client's env, sees the six calls made right after connecting", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const file = `${records.path}/obs.jsonl`;
  const gate = `${records.path}/gate`;
  // The .mcp.json a user would have (their own, outside the roots: one inside starts its peers
  // only once trusted, and then in the sandbox): this host as mcp-config prints it, and an
  // observer that answers nothing (so discovery cannot end) until the test has made its calls.
  const self = await mcpConfigFor([root.path]);
  const obs = {
    command: Deno.execPath(),
    args: ["run", "--allow-write", "--allow-read", SINK, "gated", gate, file],
  };
  await Deno.writeTextFile(
    `${records.path}/.mcp.json`,
    JSON.stringify({ mcpServers: { toolhost: self, obs } }),
  );
  const config = `${records.path}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ sinks: { mcpJson: ".mcp.json" } }));
  await using session = await connectStdio([root.path], { config, env: ON });
  const six: Array<[string, Record<string, unknown>]> = [
    ["read_file", { path: "a.txt" }],
    ["list_directory", { path: "." }],
    ["get_file_info", { path: "a.txt" }],
    ["grep", { pattern: "alpha" }],
    ["search_files", { pattern: "*.txt" }],
    ["get_file_slice", { path: "a.txt", start_line: 1, end_line: 1 }],
  ];
  for (const [name, args] of six) assertFalse((await session.call(name, args)).isError);
  // Discovery is still waiting for the observer: the copies are held, not lost.
  const status = (await session.call("get_host_performance")).structuredContent?.status as {
    efferent_copy: { state: string; held: number };
  };
  assertEquals(status.efferent_copy, { ...status.efferent_copy, state: "discovering", held: 12 });
  await Deno.writeTextFile(gate, "open\n");
  const lines = await recordedAtLeast(file, 12);
  assertEquals(lines.length, 12);
  assertOnePreOnePost(lines, six);
  assertEquals(
    lines.filter((line) => !("result" in line)).map((line) => line.tool_name),
    six.map(([name]) => name),
    "held copies are delivered in order",
  );
  const said = await waitForStderr(session, /efferent copy: 1 sink \(obs\)/);
  assertFalse(said.includes("not sinks"), "the host itself is left out quietly");
});

Deno.test("efferent copy: results with sinks are those without", async (t) => {
  // One run without sinks over one root, the one every step compares with (the results name the
  // root); each step runs again with its own sinks and records, and every run resets the root.
  await using root = await tempDir();
  const none = await run(root.path, undefined);

  await t.step(
    "efferent copy: results are identical with zero, one and three sinks; each sink sees every call twice",
    async () => {
      await using records = await tempDir();
      const file = (name: string) => `${records.path}/${name}.jsonl`;
      assertEquals(none.sinks, 0);
      const one = await run(root.path, { s1: sink("good", file("one")) }, {
        records: [file("one")],
        observeTimeoutMs: DELIVERED_MS,
      });
      assertEquals(one.sinks, 1);
      // A sink writes its record before the host has its answer: wait for the host to have all three.
      const answered = (health: SinkHealth[]) =>
        health.length === 3 && health.every((each) => each.last_success !== null);
      const three = await run(
        root.path,
        {
          a: sink("good", file("a")),
          b: sink("good", file("b")),
          c: sink("good", file("c")),
        },
        {
          records: [file("a"), file("b"), file("c")],
          settled: answered,
          observeTimeoutMs: DELIVERED_MS,
        },
      );
      assertEquals(three.sinks, 3);
      assertEquals(one.results, none.results);
      assertEquals(three.results, none.results);
      for (const name of ["one", "a", "b", "c"]) assertOnePreOnePost(await recorded(file(name)));
      const lines = await recorded(file("a"));
      const failed = lines.find((line) => line.tool_name === "get_file_info" && line.result)!;
      assertEquals(failed.result!.error_type, "not_found", "errors carry {error, error_type}");
      const ok = lines.find((line) =>
        line.tool_name === "read_file" && line.result && !line.result.error
      )!;
      assert(Array.isArray(ok.result!.content), "an object result passes as it is");
      const meta = lines[0]!._meta as Record<string, unknown>;
      assertEquals(meta["gen_ai.tool.name"], lines[0]!.tool_name);
      const failedMeta = failed._meta as Record<string, unknown>;
      assertEquals(failedMeta["error.type"], "not_found", "OpenTelemetry-style error.type");
      assertEquals(failedMeta["toolhost.phase"], "post");
      assert(typeof failedMeta["toolhost.duration_ms"] === "number", "the call's duration");
      assertEquals(three.health.map((each) => each.failures), [0, 0, 0]);
      assert(three.health.every((each) => each.last_success !== null), "freshness is shown");
    },
  );

  await t.step("efferent copy: faulty sinks leave every result correct", async () => {
    await using records = await tempDir();
    const good = `${records.path}/good.jsonl`;
    const faulty = await run(
      root.path,
      {
        hang: sink("hang"),
        exitsAtStart: sink("exit-start"),
        exitsMidRun: sink("exit-mid", "3"),
        garbage: sink("garbage"),
        slow: sink("slow"),
        good: sink("good", good),
      },
      {
        records: [good],
        settled: (health) => {
          const by = Object.fromEntries(health.map((each) => [each.name, each]));
          return (by.hang?.timeouts ?? 0) > 0 && (by.slow?.timeouts ?? 0) > 0;
        },
      },
    );
    assertEquals(faulty.results, none.results);
    assertOnePreOnePost(await recorded(good));
    const health = Object.fromEntries(faulty.health.map((each) => [each.name, each]));
    assertFalse("exitsAtStart" in health, "a peer that exits at start is not a sink");
    assertMatch(faulty.stderr, /not sinks: .*"exitsAtStart"/);
    assert(health.hang!.timeouts > 0 && health.hang!.last_success === null, "timeouts are counted");
    assertEquals(health.hang!.failures, 0, "a sink that never answers only times out");
    assert(health.slow!.timeouts > 0, "a 1 s observe times out at 250 ms");
    assertEquals(health.good!.failures, 0);
  });
});

Deno.test("efferent copy: a peer of another shape and this host itself are not sinks, and the server says why", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  const wrapper = `${records.path}/toolhost-wrapper.sh`;
  await Deno.writeTextFile(
    wrapper,
    `#!/bin/sh\n# toolhost-self-ref-target: ${ENTRY}\nexec deno run -A ${ENTRY} serve "$@"\n`,
  );
  await Deno.chmod(wrapper, 0o755);
  const good = `${records.path}/good.jsonl`;
  const { sinks, stderr } = await run(root.path, {
    shaped: sink("schema"),
    self: {
      command: Deno.execPath(),
      args: ["run", "-A", ENTRY, "serve", "--root", root.path, "--allow-broad-permissions"],
    },
    wrapped: { command: wrapper, args: ["--root", root.path] },
    good: sink("good", good),
  }, { records: [good], observeTimeoutMs: DELIVERED_MS });
  assertEquals(sinks, 1);
  assertOnePreOnePost(await recorded(good));
  assertMatch(
    stderr,
    /not sinks: "shaped" \(it has no observe\(tool_name: string, args: object\) tool\)/,
  );
  assertFalse(/"self"|"wrapped"/.test(stderr), "this host itself is left out, not reported");
});

Deno.test("efferent copy: a peer that never answers does not delay serving, and is given up after its timeout", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const config = await outsideConfig(outside.path, {
    mute: { command: Deno.execPath(), args: ["eval", "setTimeout(() => {}, 60_000)"] },
  });
  await using session = await connectStdio([root.path], { config, env: ON });
  const result = await session.call("read_file", { path: "a.txt" });
  assertEquals(resultText(result), "alpha\n");
  assertFalse(/efferent copy: \d/.test(session.stderr()), "served while discovery still waited");
  const said = await waitForStderr(session, /efferent copy: 0 sinks/);
  assertMatch(said, /not sinks: "mute" \(no answer within 5 s\)/);
  const performance = await session.call("get_host_performance");
  assertMatch(resultText(performance), /not sinks: "mute" \(no answer within 5 s\)/);
});

Deno.test("efferent copy: a sink that dies is reconnected, and its health says what happened", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const file = `${outside.path}/dies.jsonl`;
  const config = await outsideConfig(outside.path, { dies: sink("exit-mid", "4", file) });
  await using session = await connectStdio([root.path], { config, env: ON });
  await waitForStderr(session, /efferent copy: 1 sink/);
  for (let i = 0; i < 6; i++) await session.call("read_file", { path: "a.txt" });
  const first = (await recordedAtLeast(file, 4))[0]!.pid;
  // Calls keep coming; once the restarted peer is up (after a second), it takes them again.
  const pids = async () => new Set((await recorded(file)).map((line) => line.pid));
  const until = Date.now() + 30_000;
  while ((await pids()).size < 2 && Date.now() < until) {
    await session.call("read_file", { path: "a.txt" });
    await pause(100);
  }
  const seen = await pids();
  assert(seen.size >= 2 && seen.has(first), "a new process took observe calls again");
  const state = await session.call("bootstrap_body_state");
  const sinks = (state.structuredContent as { sinks: SinkHealth[] }).sinks;
  assertEquals(sinks.map((each) => each.name), ["dies"]);
  assert(sinks[0]!.failures + sinks[0]!.timeouts + sinks[0]!.drops > 0, "the losses are counted");
});

Deno.test("efferent copy: Streamable HTTP and SSE peers are sinks too", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  const file = `${records.path}/net.jsonl`;
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      new URL("../../fixtures/sinks/http_sink_server.ts", import.meta.url).pathname,
      file,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let first = "";
    while (!first.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the HTTP sink fixture exited before listening");
      first += value;
    }
    reader.releaseLock();
    const ports = JSON.parse(first.split("\n")[0]!) as { http: number; sse: number };
    const { sinks, health } = await run(
      root.path,
      {
        streamable: { type: "http", url: `http://127.0.0.1:${ports.http}/mcp` },
        events: { type: "sse", url: `http://127.0.0.1:${ports.sse}/sse` },
      },
      { records: [file], linesPerCall: 4, observeTimeoutMs: DELIVERED_MS },
    );
    assertEquals(sinks, 2);
    assertEquals(health.map((each) => each.failures), [0, 0]);
    const lines = await recorded(file) as Array<Recorded & { transport: string }>;
    assertOnePreOnePost(lines.filter((line) => line.transport === "http"));
    assertOnePreOnePost(lines.filter((line) => line.transport === "sse"));
  } finally {
    server.kill();
    await server.status;
    await server.stdout.cancel().catch(() => {});
  }
});

Deno.test("efferent copy: each observe is given the sink's timeout, 250 ms unless the user set sinks.observeTimeoutMs", () => {
  const timeouts: number[] = [];
  const channel: ObserveChannel = {
    observe: (_payload, _meta, timeoutMs) => {
      timeouts.push(timeoutMs);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const connect = () => Promise.resolve(channel);
  new Sink("default", channel, connect, () => {}).fire({ tool_name: "t", args: {} }, {});
  new Sink("set", channel, connect, () => {}, 30_000).fire({ tool_name: "t", args: {} }, {});
  assertEquals(timeouts, [250, 30_000]);
});

Deno.test("efferent copy: secrets in the arguments are redacted in the copies, as in the log", async () => {
  const sent: Array<Record<string, unknown>> = [];
  const both = Promise.withResolvers<void>();
  const channel: ObserveChannel = {
    observe: (payload) => {
      if (sent.push(payload) === 2) both.resolve();
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const sink = new Sink("recorder", channel, () => Promise.resolve(channel), () => {});
  const copy = new EfferentCopy([sink], ["license"]);
  const args = {
    path: "a.txt",
    api_key: "sk-live-1",
    headers: { Authorization: "Bearer x", "X-Trace": "t1" },
    items: [{ password: "p" }, { name: "n" }],
    license_code: "L-1",
  };
  const call = { tool: "some__tool", args, session: "s", client: "c", started: new Date() };
  copy.before(call);
  copy.after(call, {
    result: { content: [{ type: "text", text: "ok" }] },
    paths: [],
    durationMs: 1,
  });
  await both.promise; // the copies of the call's start and end were sent
  assertEquals(sent.length, 2);
  for (const payload of sent) {
    assertEquals(payload.args, {
      path: "a.txt",
      api_key: "[redacted]",
      headers: { Authorization: "[redacted]", "X-Trace": "t1" },
      items: [{ password: "[redacted]" }, { name: "n" }],
      license_code: "[redacted]",
    });
  }
  assertEquals(args.api_key, "sk-live-1", "the call's own arguments are untouched");
  await copy.close();
});
