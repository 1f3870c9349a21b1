/**
 * Session logs through the launch `mcp-config` prints: a session's MCP
 * messages land in `comms.jsonl` in order and redacted, under the id the
 * interaction log records as `session`; ripgrep's runs in the confined
 * tool workers land in `subprocess.jsonl`; `read_interactions` shows them.
 * A test whose checks read every call or every record of the session
 * starts a host of its own, which another test's calls would add to; the
 * checks that read the subprocess records by tool share one session.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, missing, tempDir } from "../../_helpers.ts";
import {
  connectStdio,
  type LaunchedHost,
  launchHost,
  resultText,
  waitForStderr,
} from "../../_mcp.ts";
import { bwrapMissing } from "../../security/_shell.ts";

/** A secret with a token's shape (found by shape, under any key). */
const SHAPED = "ghp_" + "Zq8vL2mN4pR6sT1uW3xY5zA7bC9dE0fG2hJ4";
/** A secret found only by its key's name. */
const KEYED = "plain-words-hunter2";

interface CommsLine {
  ts: string;
  dir: "in" | "out";
  method?: string;
  id?: number | string;
  message?: Record<string, unknown>;
}

/** The one session folder under a fresh root's state directory. */
async function onlySession(root: string): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${root}/.toolhost/sessions`)) names.push(entry.name);
  assertEquals(names.length, 1, `one session folder, found ${names.join(", ")}`);
  return names[0]!;
}

Deno.test("a served session's MCP messages are in comms.jsonl, in order and redacted", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/notes.txt`, "alpha\nneedle here\n");
  const host = await launchHost({ roots: [root.path] });
  let session: string;
  let calls: string;
  try {
    const wrote = await host.call("write_file", {
      path: "config.txt",
      content: `github = ${SHAPED}\n`,
    });
    assertFalse(wrote.isError, JSON.stringify(wrote));
    await host.call("read_file", { path: "notes.txt", token: KEYED });
    const found = await host.call("grep", { pattern: "needle" });
    assertMatch(resultText(found), /notes\.txt/);
    session = await onlySession(root.path);
    calls = resultText(await host.call("read_interactions", { session, limit: 10 }));
  } finally {
    await host[Symbol.asyncDispose]();
  }
  // The interaction log names the calls with the session folder's id.
  assertMatch(calls, /write_file/);
  assertMatch(calls, new RegExp(session));
  const dir = `${root.path}/.toolhost/sessions/${session}`;
  const text = await Deno.readTextFile(`${dir}/comms.jsonl`);
  assertFalse(text.includes(SHAPED), "the token-shaped secret is redacted");
  assertFalse(text.includes(KEYED), "the value of the `token` argument is redacted");
  const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as CommsLine);
  const toolCalls = lines.filter((line) => line.method === "tools/call" && line.dir === "in");
  const called = toolCalls.map((line) => (line.message?.params as { name: string }).name);
  assertEquals(called, ["write_file", "read_file", "grep", "read_interactions"]);
  assertEquals(lines[0]?.method, "initialize");
  assertEquals(lines[0]?.dir, "in");
  // Each call's answer follows its request, labelled with the request's method and id.
  for (const request of toolCalls) {
    const at = lines.indexOf(request);
    const answer = lines.findIndex((line) => line.dir === "out" && line.id === request.id);
    assert(answer > at, `the answer to ${request.id} follows it`);
    assertEquals(lines[answer]?.method, "tools/call");
  }
  const args = JSON.stringify(toolCalls[1]?.message);
  assertMatch(args, /"token":"\[redacted\]"/);
  const times = lines.map((line) => Date.parse(line.ts));
  assertEquals(times, [...times].sort((a, b) => a - b), "lines are in time order");
});

const ECHO = new URL("../../../fixtures/upstream/echo_server.ts", import.meta.url).pathname;

/** Wait (generously) until a condition holds. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Run `toolhost ARGS…`: the real CLI's `main`, in this process as `mcp-config` is run
 * (`tests/_mcp.ts`); a child process prints the same at the cost of a Deno start.
 */
async function toolhost(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { main } = await import("../../../host/cli/main.ts");
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    out: (line) => out.push(`${line}\n`),
    err: (line) => err.push(`${line}\n`),
  });
  return { code, out: out.join(""), err: err.join("") };
}

/** A launched host whose disposal runs once, whether a step or the test's end comes to it first. */
function closingOnce(host: LaunchedHost): LaunchedHost & { close(): Promise<void> } {
  let closed: Promise<void> | undefined;
  const close = () => closed ??= Promise.resolve(host[Symbol.asyncDispose]());
  return { ...host, close, [Symbol.asyncDispose]: close };
}

// One session for these steps, which read its subprocess records by tool (ripgrep's first, before
// any other process has ended), then, the host closed, its records and `toolhost log`'s table of
// them; the last step starts the host again on the aged session. The config has what each needs:
// the upstream server, two days of sessions kept.
Deno.test("a session's subprocess records: ripgrep's, an upstream server's, toolhost log's table, deleted when old", async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "needle\n");
  const upstream = { echo: { command: Deno.execPath(), args: ["run", ECHO] } };
  const file = { upstream: { mcpServers: upstream }, log: { sessions: { retentionDays: 2 } } };
  await using first = closingOnce(await launchHost({ roots: [root.path], userFile: file }));

  await t.step(
    "ripgrep's runs in the tool workers are the session's subprocess records",
    async () => {
      const status = await first.call("get_host_performance", {});
      const ripgrep =
        (status.structuredContent?.status as { ripgrep: { active: boolean } }).ripgrep;
      if (
        missing("ripgrep in the tool workers (nothing runs it to record)", ripgrep.active)
      ) return;
      assert(ripgrep.active, `ripgrep is in use (.ci/run installs it): ${resultText(status)}`);
      await first.call("grep", { pattern: "needle" });
      const page = await first.call("read_interactions", { kind: "subprocess" });
      assertFalse(page.isError, resultText(page));
      const records = page.structuredContent?.subprocesses as Array<Record<string, unknown>>;
      assert(records.length >= 1, resultText(page));
      assertEquals(records[0]?.tool, "grep");
      assert((records[0]?.argv as string[]).includes("--"));
      assertEquals(page.structuredContent?.session, await onlySession(root.path));
      const wrong = await first.call("read_interactions", {
        kind: "subprocess",
        since: "2020-01-01",
      });
      assertMatch(resultText(wrong), /^invalid_argument: /);
    },
  );

  await t.step(
    "each upstream server process the host starts is recorded when it ends",
    async () => {
      assert(first.list().some((tool) => tool.name === "echo__crash"), first.session.stderr());
      // The server exits in the middle of the call; the host restarts it.
      await first.call("echo__crash", {});
      await waitFor(async () => {
        const page = await first.call("read_interactions", {
          kind: "subprocess",
          tool: "upstream:echo",
        });
        return (page.structuredContent?.matched as number) >= 1;
      });
      // A call that needs the server started again.
      const echoed = await first.call("echo__echo", { text: "again" });
      assertFalse(echoed.isError, resultText(echoed));
      await first.close();
      const dir = `${root.path}/.toolhost/sessions/${await onlySession(root.path)}`;
      const records = (await Deno.readTextFile(`${dir}/subprocess.jsonl`)).trimEnd().split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((record) => record.tool === "upstream:echo");
      // The one that crashed, and the one started again (recorded when the host closed it).
      assert(records.length >= 2, JSON.stringify(records));
      assertEquals(records[0]?.argv, [Deno.execPath(), "run", ECHO]);
      assertEquals(records[0]?.cwd, root.path);
      assert((records[0]?.stdout_bytes as number) > 0, "its messages are counted");
    },
  );

  await t.step(
    "old sessions are deleted at start; toolhost log --subprocesses shows a session's processes",
    async () => {
      await first.close();
      const id = await onlySession(root.path);
      const shown = await toolhost(["log", "--subprocesses", "--root", root.path]);
      const table = shown.out;
      assertEquals(shown.code, 0, shown.err);
      assertMatch(table, /^time \(UTC\)\s+tool\s+ended\s+duration\s+command/);
      assertMatch(table, new RegExp(`process\\(es\\) of session ${id}`));
      // ripgrep ran the search where it is installed (the workers check it runs).
      if (canRun("rg")) assertMatch(table, /grep\s+exit 0\s+[\d.]+ ms\s+\S*rg /);
      // The session's last write is made three days old: past the two days kept.
      const old = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
      const dir = `${root.path}/.toolhost/sessions/${id}`;
      for await (const entry of Deno.readDir(dir)) {
        await Deno.utime(`${dir}/${entry.name}`, old, old);
      }
      await Deno.utime(dir, old, old);
      const second = await launchHost({ roots: [root.path], userFile: { log: file.log } });
      try {
        await waitFor(async () => {
          try {
            await Deno.lstat(dir);
            return false;
          } catch {
            return true;
          }
        });
      } finally {
        await second[Symbol.asyncDispose]();
      }
    },
  );
});

const SINK = new URL("../../../fixtures/sinks/sink_server.ts", import.meta.url).pathname;

Deno.test("efferent-copy peers the host starts are recorded as sinks", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const peer = { command: Deno.execPath(), args: ["run", "--allow-write", SINK, "good"] };
  await Deno.writeTextFile(
    `${outside.path}/mcp.json`,
    JSON.stringify({ mcpServers: { obs: peer } }),
  );
  const config = `${outside.path}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ sinks: { mcpJson: "mcp.json" } }));
  const session = await connectStdio([root.path], { config, env: { EFFERENT_COPY_ENABLE: "1" } });
  try {
    await waitForStderr(session, /efferent copy: 1 sink \(obs\)/);
    await session.call("get_tree", {});
  } finally {
    await session[Symbol.asyncDispose]();
  }
  const dir = `${root.path}/.toolhost/sessions/${await onlySession(root.path)}`;
  const records = (await Deno.readTextFile(`${dir}/subprocess.jsonl`)).trimEnd().split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.tool === "sink:obs");
  assertEquals(records.length, 1, JSON.stringify(records));
  assertEquals(records[0]?.argv, [Deno.execPath(), "run", "--allow-write", SINK, "good"]);
});

Deno.test({
  name: `run_shell's commands are kept in the session's scripts and subprocess records, in order${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using root = await tempDir();
  const host = await launchHost({ roots: [root.path] });
  let session: string;
  try {
    await host.call("run_shell", { command: "echo first > one.txt" });
    assertEquals(resultText(await host.call("read_file", { path: "one.txt" })).trim(), "first");
    await host.call("run_shell", { command: `echo ${SHAPED} | wc -c; echo second` });
    session = await onlySession(root.path);
  } finally {
    await host[Symbol.asyncDispose]();
  }
  const dir = `${root.path}/.toolhost/sessions/${session}`;
  const records = (await Deno.readTextFile(`${dir}/subprocess.jsonl`)).trimEnd().split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.tool === "run_shell");
  assertEquals(records.length, 2);
  assertEquals(records.map((record) => record.confinement), ["bwrap", "bwrap"]);
  assertEquals(records.map((record) => record.exit_code), [0, 0]);
  const scripts = await Promise.all(
    records.map((record) => Deno.readTextFile(`${dir}/${record.script}`)),
  );
  assertEquals(scripts[0], "echo first > one.txt\n");
  assertMatch(scripts[1]!, /echo .*\| wc -c; echo second/);
  assertFalse(scripts[1]!.includes(SHAPED), "a secret-shaped value in a command is redacted");
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/scripts`)) names.push(entry.name);
  assertEquals(names.sort(), records.map((record) => String(record.script).split("/").pop()));
  const comms = await Deno.readTextFile(`${dir}/comms.jsonl`);
  const called = comms.trimEnd().split("\n").map((line) => JSON.parse(line) as CommsLine)
    .filter((line) => line.method === "tools/call" && line.dir === "in")
    .map((line) => (line.message?.params as { name: string }).name);
  assertEquals(called, ["run_shell", "read_file", "run_shell"]);
  assertFalse(comms.includes(SHAPED));
});
