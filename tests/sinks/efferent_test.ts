/**
 * Efferent copy with real subprocess sinks (fixtures/sinks/sink_server.ts):
 * results are the same with zero, one, three and faulty sinks; every sink
 * sees one pre and one post observe per call, errors included; peers of
 * another shape and this host itself are not sinks.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals, assertFalse } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { createHost } from "../../host/host.ts";
import { createGateway } from "../../host/gateway.ts";
import { EfferentCopy, type ObserveChannel, Sink } from "../../sinks/efferent.ts";

const SINK = new URL("../../fixtures/sinks/sink_server.ts", import.meta.url).pathname;
interface SinkHealth {
  name: string;
  last_success: string | null;
  drops: number;
  failures: number;
}

const ENTRY = new URL("../../mod.ts", import.meta.url).pathname;

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

/** Run the call sequence through a real MCP client and return the JSON-RPC results as text. */
async function run(
  root: string,
  peers: Record<string, unknown> | undefined,
): Promise<{ results: string[]; sinks: number; health: SinkHealth[] }> {
  await Deno.writeTextFile(`${root}/a.txt`, "alpha\n");
  await Deno.remove(`${root}/b.txt`).catch(() => {});
  // The peers are listed outside the root (sinks.mcpJson), so the root looks the same in every run.
  await using outside = await tempDir();
  await Deno.writeTextFile(`${outside.path}/mcp.json`, JSON.stringify({ mcpServers: peers ?? {} }));
  await Deno.writeTextFile(
    `${outside.path}/toolhost.json`,
    JSON.stringify({ sinks: { mcpJson: "mcp.json" } }),
  );
  await using host = await createHost({
    roots: [root],
    configFile: `${outside.path}/toolhost.json`,
    ripgrep: "off",
    logger: { log: () => {} },
    efferentCopy: peers !== undefined,
  });
  const sinks = await host.sinksReady();
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createGateway(host).connect(serverSide);
  const client = new Client({ name: "efferent-test", version: "1" });
  await client.connect(clientSide);
  const results: string[] = [];
  for (const [name, args] of CALLS) {
    results.push(JSON.stringify(await client.callTool({ name, arguments: args })));
  }
  await new Promise((resolve) => setTimeout(resolve, 400)); // let the fire-and-forget copies land
  // An observation tool: never mirrored (assertOnePreOnePost would see it), and it shows sink health.
  const state = await client.callTool({ name: "bootstrap_body_state", arguments: {} });
  await client.close();
  const health = (state.structuredContent as { sinks: SinkHealth[] }).sinks;
  return { results, sinks, health };
}

async function recorded(
  file: string,
): Promise<Array<{ tool_name: string; result?: Record<string, unknown> }>> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

function assertOnePreOnePost(lines: Awaited<ReturnType<typeof recorded>>): void {
  const pre = lines.filter((line) => !("result" in line)).map((line) => line.tool_name);
  const post = lines.filter((line) => "result" in line).map((line) => line.tool_name);
  const expected = CALLS.map(([name]) => name).sort();
  assertEquals(pre.sort(), expected, "one pre observe per call");
  assertEquals(post.sort(), expected, "one post observe per call");
}

Deno.test("efferent copy: results are identical with zero, one and three sinks; each sink sees every call twice", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  const none = await run(root.path, undefined);
  assertEquals(none.sinks, 0);
  const one = await run(root.path, { s1: sink("good", `${records.path}/one.jsonl`) });
  assertEquals(one.sinks, 1);
  const three = await run(root.path, {
    a: sink("good", `${records.path}/a.jsonl`),
    b: sink("good", `${records.path}/b.jsonl`),
    c: sink("good", `${records.path}/c.jsonl`),
  });
  assertEquals(three.sinks, 3);
  assertEquals(one.results, none.results);
  assertEquals(three.results, none.results);
  for (const file of ["one", "a", "b", "c"]) {
    assertOnePreOnePost(await recorded(`${records.path}/${file}.jsonl`));
  }
  const lines = await recorded(`${records.path}/a.jsonl`);
  const failed = lines.find((line) => line.tool_name === "get_file_info" && line.result)!;
  assertEquals(failed.result!.error_type, "not_found", "errors carry {error, error_type}");
  const ok = lines.find((line) =>
    line.tool_name === "read_file" && line.result && !line.result.error
  )!;
  assert(Array.isArray(ok.result!.content), "an object result passes as it is");
  const meta = (lines[0] as unknown as { _meta: Record<string, unknown> })._meta;
  assertEquals(meta["gen_ai.tool.name"], lines[0]!.tool_name);
  const failedMeta = (failed as unknown as { _meta: Record<string, unknown> })._meta;
  assertEquals(failedMeta["error.type"], "not_found", "OpenTelemetry-style error.type");
  assertEquals(failedMeta["toolhost.phase"], "post");
  assert(typeof failedMeta["toolhost.duration_ms"] === "number", "the call's duration");
  assertEquals(three.health.map((each) => each.failures), [0, 0, 0]);
  assert(three.health.every((each) => each.last_success !== null), "freshness is shown");
});

Deno.test("efferent copy: a peer of another shape and this host itself are not sinks", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  const wrapper = `${records.path}/toolhost-wrapper.sh`;
  await Deno.writeTextFile(
    wrapper,
    `#!/bin/sh\n# toolhost-self-ref-target: ${ENTRY}\nexec deno run -A ${ENTRY} serve "$@"\n`,
  );
  await Deno.chmod(wrapper, 0o755);
  const { sinks } = await run(root.path, {
    shaped: sink("schema"),
    self: {
      command: Deno.execPath(),
      args: ["run", "-A", ENTRY, "serve", "--root", root.path, "--allow-broad-permissions"],
    },
    wrapped: { command: wrapper, args: ["--root", root.path] },
    good: sink("good", `${records.path}/good.jsonl`),
  });
  assertEquals(sinks, 1);
  assertOnePreOnePost(await recorded(`${records.path}/good.jsonl`));
});

Deno.test("efferent copy: faulty sinks leave every result correct", async () => {
  await using root = await tempDir();
  await using records = await tempDir();
  const none = await run(root.path, undefined);
  const faulty = await run(root.path, {
    hang: sink("hang"),
    exitsAtStart: sink("exit-start"),
    exitsMidRun: sink("exit-mid", "3"),
    garbage: sink("garbage"),
    slow: sink("slow"),
    good: sink("good", `${records.path}/good.jsonl`),
  });
  assertEquals(faulty.results, none.results);
  assertOnePreOnePost(await recorded(`${records.path}/good.jsonl`));
  const health = Object.fromEntries(faulty.health.map((each) => [each.name, each]));
  assertFalse("exitsAtStart" in health, "a peer that exits at start is not a sink");
  assert(health.hang!.failures > 0 && health.hang!.last_success === null, "timeouts are counted");
  assert(health.slow!.failures > 0, "a 1 s observe times out at 250 ms");
  assertEquals(health.good!.failures, 0);
});

Deno.test("efferent copy: a peer that never answers does not delay serving, and is dropped after 5 s", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await Deno.writeTextFile(
    `${outside.path}/mcp.json`,
    JSON.stringify({
      mcpServers: {
        mute: { command: Deno.execPath(), args: ["eval", "setTimeout(() => {}, 60_000)"] },
      },
    }),
  );
  await Deno.writeTextFile(
    `${outside.path}/toolhost.json`,
    JSON.stringify({ sinks: { mcpJson: "mcp.json" } }),
  );
  const start = performance.now();
  await using host = await createHost({
    roots: [root.path],
    configFile: `${outside.path}/toolhost.json`,
    ripgrep: "off",
    logger: { log: () => {} },
    efferentCopy: true,
  });
  let discovered = false;
  const ready = host.sinksReady().then((count) => {
    discovered = true;
    return count;
  });
  const result = await host.call("read_file", { path: "a.txt" });
  assertFalse(result.isError);
  assertFalse(discovered, "the call was served while discovery still waited");
  assert(performance.now() - start < 4_000, "serving did not wait for the peer");
  assertEquals(await ready, 0);
  const waited = performance.now() - start;
  assert(waited >= 4_900 && waited < 8_000, `discovery gave up after 5 s, not ${waited} ms`);
});

Deno.test("efferent copy: a sink that dies is reconnected, and its health says what happened", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const file = `${outside.path}/dies.jsonl`;
  await Deno.writeTextFile(
    `${outside.path}/mcp.json`,
    JSON.stringify({ mcpServers: { dies: sink("exit-mid", "4", file) } }),
  );
  await Deno.writeTextFile(
    `${outside.path}/toolhost.json`,
    JSON.stringify({ sinks: { mcpJson: "mcp.json" } }),
  );
  await using host = await createHost({
    roots: [root.path],
    configFile: `${outside.path}/toolhost.json`,
    ripgrep: "off",
    logger: { log: () => {} },
    efferentCopy: true,
  });
  assertEquals(await host.sinksReady(), 1);
  for (let i = 0; i < 6; i++) {
    await host.call("read_file", { path: "a.txt" });
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  const before = (await recorded(file)).length;
  assertEquals(before, 4, "it recorded four observe calls, then exited");
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the reconnect waits a second
  for (let i = 0; i < 2; i++) {
    await host.call("read_file", { path: "a.txt" });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert((await recorded(file)).length > before, "a new process took observe calls again");
  const state = await host.call("bootstrap_body_state", {});
  const sinks =
    (state.structuredContent as { sinks: Array<{ name: string; failures: number; drops: number }> })
      .sinks;
  assertEquals(sinks.map((each) => each.name), ["dies"]);
  assert(sinks[0]!.failures + sinks[0]!.drops > 0, "the losses are counted");
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
    const { sinks, health } = await run(root.path, {
      streamable: { type: "http", url: `http://127.0.0.1:${ports.http}/mcp` },
      events: { type: "sse", url: `http://127.0.0.1:${ports.sse}/sse` },
    });
    assertEquals(sinks, 2);
    assertEquals(health.map((each) => each.failures), [0, 0]);
    const lines = await recorded(file) as Array<{ tool_name: string; transport: string }>;
    assertOnePreOnePost(lines.filter((line) => line.transport === "http"));
    assertOnePreOnePost(lines.filter((line) => line.transport === "sse"));
  } finally {
    server.kill();
    await server.status;
    await server.stdout.cancel().catch(() => {});
  }
});

Deno.test("efferent copy: secrets in the arguments are redacted in the copies, as in the log", async () => {
  const sent: Array<Record<string, unknown>> = [];
  const channel: ObserveChannel = {
    observe: (payload) => (sent.push(payload), Promise.resolve()),
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
  await new Promise((resolve) => setTimeout(resolve, 50));
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
