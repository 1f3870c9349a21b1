/**
 * The session log as one module: its lines (in order, redacted, cut), its
 * process records and kept scripts, its caps, retention, a state directory
 * that is not the host's, a failing disk, and reading records back.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { readSessionProcesses, SessionLog } from "../../../host/state/mod.ts";
import type { SessionLogSettings } from "../../../host/config/mod.ts";
import { ToolError } from "../../../security/errors.ts";
import type { SubprocessRecord } from "../../../tools/sandbox.ts";

/** A secret with a token's shape, and one found only by its key's name. */
const SHAPED = "ghp_" + "Zq8vL2mN4pR6sT1uW3xY5zA7bC9dE0fG2hJ4";
const KEYED = "plain-words-hunter2";

const SETTINGS: SessionLogSettings = {
  enabled: true,
  retentionDays: 7,
  maxTotalBytes: 256 * 1024 * 1024,
  maxSessionBytes: 32 * 1024 * 1024,
  maxMessageBytes: 16 * 1024,
};

/** A logger that keeps its lines. */
function lines(): { log: (level: string, message: string) => void; said: string[] } {
  const said: string[] = [];
  return { said, log: (level, message) => said.push(`${level}: ${message}`) };
}

async function open(
  stateDir: string,
  settings: Partial<SessionLogSettings> = {},
  logger = lines(),
): Promise<SessionLog> {
  await Deno.mkdir(stateDir, { recursive: true });
  return await SessionLog.open({ stateDir, settings: { ...SETTINGS, ...settings }, logger });
}

async function jsonLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

function process(overrides: Partial<SubprocessRecord> = {}): SubprocessRecord {
  return {
    tool: "run_shell",
    argv: ["bash", "-c", "true"],
    cwd: "/srv/project",
    confinement: "bwrap",
    exitCode: 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    durationMs: 12.5,
    stdoutBytes: 3,
    stderrBytes: 0,
    stdoutHead: "ok\n",
    stderrHead: "",
    ...overrides,
  };
}

Deno.test("comms.jsonl keeps each message in order, redacted, an answer named by its request", async () => {
  await using root = await tempDir();
  const log = await open(`${root.path}/.toolhost`);
  const args = { path: "a.py", token: KEYED, text: `export GH=${SHAPED}` };
  log.comms("in", {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "x", arguments: args },
  });
  log.comms("out", { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } });
  log.comms("out", {
    jsonrpc: "2.0",
    id: 7,
    result: { content: [{ type: "text", text: "done" }] },
  });
  log.refused("Cannot parse the request: it is not JSON");
  await log.close();
  const text = await Deno.readTextFile(`${log.dir}/comms.jsonl`);
  assertFalse(text.includes(KEYED));
  assertFalse(text.includes(SHAPED));
  const [call, progress, answer, refused] = await jsonLines(`${log.dir}/comms.jsonl`);
  assertEquals([call?.dir, call?.method, call?.id], ["in", "tools/call", 7]);
  assertMatch(JSON.stringify(call?.message), /"token":"\[redacted\]".*GH=\[redacted\]/);
  assertEquals([progress?.dir, progress?.method, progress?.id], [
    "out",
    "notifications/progress",
    undefined,
  ]);
  assertEquals([answer?.dir, answer?.method, answer?.id], ["out", "tools/call", 7]);
  // A message with nothing to redact is kept exactly, its size that of its JSON.
  const plain = { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "done" }] } };
  assertEquals(answer?.message, plain);
  assertEquals(answer?.bytes, JSON.stringify(plain).length);
  assertEquals(Object.keys(answer ?? {}), ["ts", "dir", "method", "id", "bytes", "message"]);
  assertEquals(refused?.refused, "Cannot parse the request: it is not JSON");
  assertMatch(log.id, /^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
});

Deno.test("a message over the cap is cut, and a secret across a cut is redacted whole", async () => {
  await using root = await tempDir();
  const log = await open(`${root.path}/.toolhost`, { maxMessageBytes: 1024 });
  // Strings are kept to a quarter of the cap (256 characters): this secret straddles that.
  const straddling = `${"word ".repeat(48)}${SHAPED} ${"more ".repeat(1000)}`;
  log.comms("out", {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: straddling }] },
  });
  log.comms("out", { jsonrpc: "2.0", id: 2, result: { many: Array(40).fill("c".repeat(300)) } });
  await log.close();
  const text = await Deno.readTextFile(`${log.dir}/comms.jsonl`);
  for (let at = 0; at + 8 <= SHAPED.length; at++) {
    assertFalse(
      text.includes(SHAPED.slice(at, at + 8)),
      `no part of the secret: ${SHAPED.slice(at, at + 8)}`,
    );
  }
  const [one, two] = await jsonLines(`${log.dir}/comms.jsonl`);
  assertEquals(one?.cut, true);
  assertEquals(
    one?.bytes,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: straddling }] },
    }).length,
  );
  assertMatch(JSON.stringify(one?.message), /…\[cut: 5281 chars\]/);
  const preview = (two?.message as { _preview?: string })._preview;
  assertEquals(preview?.length, 1024);
  assert(text.split("\n").every((line) => line.length < 2048), "every line is bounded");
});

Deno.test("subprocess.jsonl records each process; scripts/ keeps each command, in order", async () => {
  await using root = await tempDir();
  const log = await open(`${root.path}/.toolhost`);
  log.record(process({ script: "python3 -m unittest\n" }));
  log.record(process({ tool: "grep", argv: ["rg", "--password", KEYED], confinement: "landlock" }));
  log.record(
    process({
      script: `curl -H 'Authorization: Bearer ${SHAPED}' x`,
      stdoutHead: "x".repeat(5000),
    }),
  );
  await log.close();
  const text = await Deno.readTextFile(`${log.dir}/subprocess.jsonl`);
  assertFalse(text.includes(KEYED));
  assertFalse(text.includes(SHAPED));
  const [first, second, third] = await jsonLines(`${log.dir}/subprocess.jsonl`);
  assertEquals([first?.seq, second?.seq, third?.seq], [1, 2, 3]);
  assertEquals([first?.session, first?.exit_code, first?.duration_ms], [log.id, 0, 12.5]);
  assertMatch(String(first?.script), /^scripts\/\d{8}T\d{9}Z_0001\.sh$/);
  assertEquals(second?.script, undefined);
  assertEquals(second?.argv, ["rg", "--password", "[redacted]"]);
  assertMatch(String(third?.script), /_0003\.sh$/);
  assertEquals(third?.script_redacted, true);
  assert(String(third?.stdout_head).length <= 1025);
  assertEquals(await Deno.readTextFile(`${log.dir}/${first?.script}`), "python3 -m unittest\n");
  const kept = await Deno.readTextFile(`${log.dir}/${third?.script}`);
  assertEquals(kept, "curl -H 'Authorization: Bearer [redacted]' x\n");
  const names = [];
  for await (const entry of Deno.readDir(`${log.dir}/scripts`)) names.push(entry.name);
  assertEquals(names.length, 2);
});

Deno.test("past maxSessionBytes a session stops logging messages, with one note; records go on", async () => {
  await using root = await tempDir();
  const log = await open(`${root.path}/.toolhost`, { maxSessionBytes: 4096 });
  for (let i = 0; i < 40; i++) {
    log.comms("in", { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "read_file" } });
    await log.flush();
  }
  log.record(process());
  await log.close();
  const comms = await jsonLines(`${log.dir}/comms.jsonl`);
  const notes = comms.filter((line) => typeof line.note === "string");
  assertEquals(notes.length, 1);
  assertMatch(String(notes[0]?.note), /no longer logged.*cap of 4096/);
  assertEquals(comms.at(-1), notes[0]);
  assert(comms.length < 40, `stopped early: ${comms.length} lines`);
  assertEquals((await jsonLines(`${log.dir}/subprocess.jsonl`)).length, 1);
});

/** A session folder of `bytes` bytes, last written `ageMs` ago. */
async function planted(sessions: string, id: string, bytes: number, ageMs: number): Promise<void> {
  await Deno.mkdir(`${sessions}/${id}/scripts`, { recursive: true });
  await Deno.writeTextFile(`${sessions}/${id}/comms.jsonl`, "x".repeat(bytes));
  const at = new Date(Date.now() - ageMs);
  for (const path of ["comms.jsonl", "scripts", ""]) {
    await Deno.utime(`${sessions}/${id}/${path}`, at, at);
  }
}

Deno.test("retention deletes idle sessions, then the oldest until under the cap, never a live one", async (t) => {
  await using root = await tempDir();
  const stateDir = `${root.path}/.toolhost`;
  const sessions = `${stateDir}/sessions`;
  const HOUR = 60 * 60 * 1000;
  await open(stateDir); // makes the state directory the host's own
  await planted(sessions, "20200101T000000Z-0000000a", 10, 10 * 24 * HOUR);
  await planted(sessions, "20200102T000000Z-0000000b", 3000, 3 * HOUR);
  await planted(sessions, "20200103T000000Z-0000000c", 3000, 2 * HOUR);
  await planted(sessions, "20200104T000000Z-0000000d", 3000, 0);
  await Deno.mkdir(`${sessions}/keep-me`);
  const left = async () => {
    const names: string[] = [];
    for await (const entry of Deno.readDir(sessions)) names.push(entry.name);
    return names.sort();
  };
  await t.step("idle ones, then the oldest until the rest fit", async () => {
    const log = await open(stateDir, { maxTotalBytes: 7000 });
    await log.close();
    assertEquals(await left(), [
      "20200103T000000Z-0000000c",
      "20200104T000000Z-0000000d",
      "keep-me",
    ]);
  });
  await t.step("a session written to minutes ago stays, whatever the cap", async () => {
    const log = await open(stateDir, { maxTotalBytes: 1 });
    log.record(process());
    await log.close();
    assertEquals(await left(), ["20200104T000000Z-0000000d", "keep-me", log.id].sort());
  });
});

Deno.test("session logs switched off write nothing", async () => {
  await using root = await tempDir();
  const log = await open(`${root.path}/.toolhost`, { enabled: false });
  log.comms("in", { jsonrpc: "2.0", id: 1, method: "ping" });
  log.record(process({ script: "true" }));
  await log.close();
  assertFalse(log.enabled);
  await assertRejects(() => Deno.stat(`${root.path}/.toolhost/sessions`), Deno.errors.NotFound);
});

Deno.test("a sessions folder the host did not make is set aside, never read back", async () => {
  await using root = await tempDir();
  const stateDir = `${root.path}/.toolhost`;
  const forged = `${stateDir}/sessions/20200101T000000Z-0000000f`;
  await Deno.mkdir(forged, { recursive: true });
  await Deno.writeTextFile(
    `${forged}/subprocess.jsonl`,
    `${JSON.stringify({ tool: "x", seq: 1 })}\n`,
  );
  const logger = lines();
  const log = await open(stateDir, {}, logger);
  await log.close();
  assertMatch(logger.said.join("\n"), /Set aside sessions in the state directory/);
  const error = await assertRejects(
    () => log.reader().subprocesses({ session: "20200101T000000Z-0000000f", limit: 5 }),
    ToolError,
  );
  assertMatch(error.message, /no session logs|no such session/);
});

Deno.test("a failing disk is said once, and logging goes on without throwing", async () => {
  await using root = await tempDir();
  const stateDir = `${root.path}/.toolhost`;
  const logger = lines();
  const log = await open(stateDir, {}, logger);
  await Deno.writeTextFile(`${stateDir}/sessions`, "not a folder");
  for (let i = 0; i < 5; i++) {
    log.comms("in", { jsonrpc: "2.0", id: i, method: "ping" });
    log.record(process({ script: "true" }));
    await log.flush();
  }
  await log.close();
  const failures = logger.said.filter((line) => line.includes("Cannot write the session log"));
  assertEquals(failures.length, 1, logger.said.join("\n"));
});

Deno.test("process records read back most recent first, by tool, within a limit", async (t) => {
  await using root = await tempDir();
  const stateDir = `${root.path}/.toolhost`;
  const log = await open(stateDir);
  for (const tool of ["run_shell", "grep", "run_shell", "git_status"]) {
    log.record(process({ tool }));
  }
  await log.flush();
  await Deno.writeTextFile(`${log.dir}/subprocess.jsonl`, '{"tool":"run_sh\n{not json\n', {
    append: true,
  });
  await t.step("this session's, newest first", async () => {
    const page = await log.reader().subprocesses({ limit: 2 });
    assertEquals(page.session, log.id);
    assertEquals(page.subprocesses.map((each) => each.seq), [4, 3]);
    assertEquals([page.matched, page.skipped], [4, 2]);
  });
  await t.step("one tool's", async () => {
    const page = await log.reader().subprocesses({ tool: "run_shell", limit: 10 });
    assertEquals(page.subprocesses.map((each) => each.seq), [3, 1]);
  });
  await t.step("the latest session a client spoke to, outside any (toolhost log)", async () => {
    // No client spoke to this one (as to doctor's probes): by default it is not read.
    await assertRejects(
      () => readSessionProcesses(stateDir, { limit: 1 }),
      ToolError,
      "no MCP client spoke to",
    );
    const any = await readSessionProcesses(stateDir, { limit: 1 }, { any: true });
    assertEquals([any.session, any.subprocesses[0]?.tool], [log.id, "git_status"]);
    // An older session a client spoke to is read instead of the newer one no client did.
    const spoken = await open(stateDir);
    spoken.comms("in", { jsonrpc: "2.0", id: 0, method: "initialize" });
    spoken.record(process({ tool: "grep" }));
    await spoken.close();
    const old = new Date(Date.now() - 60_000);
    for (const name of ["comms.jsonl", "subprocess.jsonl", "scripts", ""]) {
      await Deno.utime(`${spoken.dir}/${name}`, old, old);
    }
    const page = await readSessionProcesses(stateDir, { limit: 1 });
    assertEquals([page.session, page.subprocesses[0]?.tool], [spoken.id, "grep"]);
    assertEquals(page.passed_over, 1);
    const latest = await readSessionProcesses(stateDir, { limit: 1 }, { any: true });
    assertEquals(latest.session, log.id);
  });
  await t.step("an id that is not a session's, or no such session", async () => {
    await assertRejects(
      () => log.reader().subprocesses({ session: "../x", limit: 1 }),
      ToolError,
      "session id looks like",
    );
    const missing = await assertRejects(
      () => log.reader().subprocesses({ session: "20200101T000000Z-00000000", limit: 1 }),
      ToolError,
    );
    assertStringIncludes(missing.message, log.id);
  });
  await log.close();
});
