/**
 * Layer 3: upstream MCP servers behind the dispatcher, as real subprocesses:
 * a fixture server and @modelcontextprotocol/server-filesystem from npm.
 */

import { Client, type Tool } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { Dispatcher } from "../../../host/providers/dispatcher.ts";
import { UpstreamProvider } from "../../../host/providers/upstream.ts";

const ECHO = new URL("../../../fixtures/upstream/echo_server.ts", import.meta.url).pathname;
const quiet = { log: () => {} };
const SERVER_FILESYSTEM = new URL(
  "../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.url,
).pathname;

function echoSpec(markers: string) {
  return { command: Deno.execPath(), args: ["run", `--allow-write=${markers}`, ECHO, markers] };
}

async function directTools(command: string, args: string[]): Promise<Tool[]> {
  const client = new Client({ name: "direct", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "pipe" }));
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

Deno.test("upstream: tools appear as <server>__<tool> with schemas and annotations intact", async () => {
  await using markers = await tempDir();
  const spec = echoSpec(markers.path);
  const upstream = await UpstreamProvider.connect({
    name: "echo",
    spec,
    cwd: markers.path,
    logger: quiet,
  });
  try {
    const direct = await directTools(spec.command, spec.args);
    const listed = upstream.list();
    assertEquals(
      listed.map((tool) => tool.name).sort(),
      direct.map((tool) => `echo__${tool.name}`).sort(),
    );
    for (const tool of direct) {
      const mine = listed.find((each) => each.name === `echo__${tool.name}`)!;
      assertEquals(mine.inputSchema, tool.inputSchema);
      assertEquals(mine.outputSchema, tool.outputSchema);
      assertEquals(mine.annotations, tool.annotations ?? {});
      assertEquals(mine.description, tool.description);
    }
    const dispatcher = new Dispatcher([upstream]);
    const result = await dispatcher.call("echo__echo", { text: "hi" }, {
      session: "t",
      client: "t",
    });
    assertEquals(result.structuredContent, { text: "hi" });
    const meta = await dispatcher.call("echo__meta", {}, {
      session: "t",
      client: "t",
      meta: { trace: "abc" },
    });
    assertEquals(JSON.parse(textOf(meta)).trace, "abc");
  } finally {
    await upstream.close();
  }
});

Deno.test("upstream: allow and deny lists", async () => {
  await using markers = await tempDir();
  const upstream = await UpstreamProvider.connect({
    name: "echo",
    spec: echoSpec(markers.path),
    cwd: markers.path,
    allow: ["echo", "slow", "crash"],
    deny: ["crash"],
    logger: quiet,
  });
  try {
    assertEquals(upstream.list().map((tool) => tool.name).sort(), ["echo__echo", "echo__slow"]);
  } finally {
    await upstream.close();
  }
});

Deno.test("upstream: cancellation reaches the upstream and its progress reaches the caller", async () => {
  await using markers = await tempDir();
  const upstream = await UpstreamProvider.connect({
    name: "echo",
    spec: echoSpec(markers.path),
    cwd: markers.path,
    logger: quiet,
  });
  try {
    const controller = new AbortController();
    const pending = upstream.call("echo__slow", { ms: 30_000 }, {
      session: "t",
      client: "t",
      signal: controller.signal,
    });
    // Cancelled once the upstream runs the call (it says so in a marker file).
    await until(() => exists(`${markers.path}/started`), "the upstream started the call");
    controller.abort();
    const { result } = await pending;
    assertMatch(textOf(result), /^cancelled: /);
    await until(() => exists(`${markers.path}/aborted`), "the upstream saw the cancellation");

    const seen: number[] = [];
    const done = await upstream.call("echo__progress", { steps: 4 }, {
      session: "t",
      client: "t",
      onProgress: (progress) => seen.push(progress),
    });
    assertEquals(textOf(done.result), "done 4");
    assertEquals(seen, [1, 2, 3, 4]);
  } finally {
    await upstream.close();
  }
});

Deno.test("upstream: a crash mid-call is a clear error, and later calls work after the restart", async () => {
  await using markers = await tempDir();
  const upstream = await UpstreamProvider.connect({
    name: "echo",
    spec: echoSpec(markers.path),
    cwd: markers.path,
    logger: quiet,
  });
  try {
    const { result } = await upstream.call("echo__crash", {}, { session: "t", client: "t" });
    assertEquals(result.isError, true);
    assertMatch(
      textOf(result),
      /^upstream_error: The upstream server "echo" stopped during the call/,
    );
    const again = await upstream.call("echo__echo", { text: "back" }, {
      session: "t",
      client: "t",
    });
    assertEquals(textOf(again.result), "back");
  } finally {
    await upstream.close();
  }
});

Deno.test("upstream: @modelcontextprotocol/server-filesystem from npm behind the dispatcher", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/hello.txt`, "hello from upstream\n");
  // The package as the project installed it (deno.json pins it), run from its own files.
  const spec = { command: Deno.execPath(), args: ["run", "-A", SERVER_FILESYSTEM, dir.path] };
  const upstream = await UpstreamProvider.connect({
    name: "fs",
    spec,
    cwd: dir.path,
    logger: quiet,
  });
  try {
    const direct = await directTools(spec.command, spec.args);
    const names = upstream.list().map((tool) => tool.name);
    assertEquals(names.sort(), direct.map((tool) => `fs__${tool.name}`).sort());
    const read = direct.find((tool) => tool.name === "read_text_file")
      ? "fs__read_text_file"
      : "fs__read_file";
    const mine = upstream.list().find((tool) => tool.name === read)!;
    assertEquals(
      mine.annotations,
      direct.find((tool) => `fs__${tool.name}` === read)!.annotations ?? {},
    );
    const dispatcher = new Dispatcher([upstream]);
    const result = await dispatcher.call(read, { path: `${dir.path}/hello.txt` }, {
      session: "t",
      client: "t",
    });
    assertEquals(textOf(result).trim(), "hello from upstream");
  } finally {
    await upstream.close();
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Wait for a state (never a time bound), failing after a generous outer limit. */
async function until(holds: () => Promise<boolean>, what: string): Promise<void> {
  for (const giveUp = Date.now() + 60_000; !(await holds());) {
    if (Date.now() > giveUp) throw new Error(`Gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
