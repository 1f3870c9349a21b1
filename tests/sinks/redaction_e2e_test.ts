/**
 * Redaction end to end, in the launch users run: every case of `_secrets.ts`
 * sent as the arguments of a real `read_file` call, with efferent copy on
 * (`EFFERENT_COPY_ENABLE=1` in the client's env) and a real sink peer
 * (fixtures/sinks/sink_server.ts) in the user's `.mcp.json`. No secret
 * reaches the interaction log on disk, the sink, `read_interactions` or the
 * session log (`comms.jsonl`) — nor, for the cases that hide a secret in
 * encoded text (a percent-encoded redirect target, JSON in a string), any
 * encoded form of it; every call is there, with all its keys, and ordinary
 * arguments are kept exactly as they were sent.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText, type StdioSession, waitForStderr } from "../_mcp.ts";
import { MAX_IN_FLIGHT } from "../../sinks/efferent.ts";
import { REDACTED } from "../../sinks/redact.ts";
import { ORDINARY_CASES, SECRET_CASES } from "./_secrets.ts";

const SINK = new URL("../../fixtures/sinks/sink_server.ts", import.meta.url).pathname;
/** The longest wait for a state (the log, the sink) to be reached. */
const WAIT_MS = 60_000;
/** Calls per `read_interactions` page: small, so that paging is exercised. */
const PAGE = 25;
/**
 * Calls made before waiting for the sink to have their copies (two per
 * call): well within the copies a sink may have in flight, past which live
 * copies are dropped by design.
 */
const BATCH = MAX_IN_FLIGHT / 4;

type Args = Record<string, unknown>;
/** A call as the log and `read_interactions` hold it. */
type Logged = { ts: string; tool: string; args: Args };
/** A copy as the sink recorded it: `result` only in the copy sent after the call. */
type Observed = { tool_name: string; args: Args; result?: unknown };
/** A line of `comms.jsonl`: an MCP message, in or out. */
type CommsLine = { dir: "in" | "out"; message?: { method?: string; params?: Args } };

/**
 * Call `n`'s arguments: a case's, with the file to read (unless the case
 * names its own `path`) and the call's number, which `read_file` does not
 * take but the log and the copies keep.
 */
function callArgs(n: number, args: Args): Args {
  return { path: "a.txt", ...args, call: n };
}

/** Read a state until `done` holds (or fail after {@linkcode WAIT_MS}). */
async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every file under the log's folder, as it is on disk. */
async function logFiles(root: string): Promise<string> {
  const dir = `${root}/.toolhost/interactions`;
  let text = "";
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile) text += await Deno.readTextFile(`${dir}/${entry.name}`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return text;
}

/** Every session's `comms.jsonl`, as it is on disk. */
async function commsFiles(root: string): Promise<string> {
  const dir = `${root}/.toolhost/sessions`;
  let text = "";
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) {
        text += await Deno.readTextFile(`${dir}/${entry.name}/comms.jsonl`).catch(() => "");
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return text;
}

/** The arguments of the `read_file` calls that came in, as `comms.jsonl` holds them. */
function commsCalls(text: string): Args[] {
  return jsonLines<CommsLine>(text)
    .filter((line) => line.dir === "in" && line.message?.method === "tools/call")
    .map((line) => line.message!.params!)
    .filter((params) => params.name === "read_file")
    .map((params) => params.arguments as Args);
}

function jsonLines<T>(text: string): T[] {
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
}

/** The `read_file` copies a sink recorded in `file`, and the text of the file. */
async function copiesAt(file: string): Promise<{ text: string; copies: Observed[] }> {
  const text = await Deno.readTextFile(file).catch(() => "");
  const copies = jsonLines<Observed>(text).filter((line) => line.tool_name === "read_file");
  return { text, copies };
}

/**
 * Make the calls a batch at a time, each batch once the sink has the copies
 * of the calls before it.
 */
async function callAll(session: StdioSession, sent: Args[], received: string): Promise<void> {
  for (let start = 0; start < sent.length; start += BATCH) {
    for (const args of sent.slice(start, start + BATCH)) await session.call("read_file", args);
    const made = Math.min(start + BATCH, sent.length);
    await waitFor(
      `the sink to have the copies of ${made} calls`,
      () => copiesAt(received),
      (at) => at.copies.length >= 2 * made,
    ).catch(async (error) => {
      const state = await session.call("bootstrap_body_state");
      throw new Error(`${error.message}; sinks: ${JSON.stringify(state.structuredContent?.sinks)}`);
    });
  }
}

/** Each call's arguments, by the call's number. */
function byCall(args: Args[]): Map<unknown, Args> {
  return new Map(args.map((each) => [each.call, each]));
}

/** All `read_file` calls through `read_interactions`, a page at a time, newest first. */
async function readInteractions(session: StdioSession): Promise<{ pages: string; logged: Args[] }> {
  let pages = "";
  const logged = new Map<unknown, Args>();
  let until: string | undefined;
  for (;;) {
    const result = await session.call("read_interactions", {
      tool: "read_file",
      limit: PAGE,
      ...(until === undefined ? {} : { until }),
    });
    assertFalse(result.isError, resultText(result));
    pages += JSON.stringify(result);
    const page = (result.structuredContent as { interactions: Logged[] }).interactions;
    const fresh = page.filter((line) => !logged.has(line.args.call));
    for (const line of fresh) logged.set(line.args.call, line.args);
    // `until` is inclusive: the next page starts at the oldest call of this one.
    if (page.length < PAGE || fresh.length === 0) return { pages, logged: [...logged.values()] };
    until = page.at(-1)!.ts;
  }
}

/** No secret of any case, in any of its forms, as it is or escaped as JSON, is in `text`. */
function assertNoSecret(text: string, where: string): void {
  for (const { name, secret, forms = [] } of SECRET_CASES) {
    for (const each of [secret, ...forms]) {
      for (const form of new Set([each, JSON.stringify(each).slice(1, -1)])) {
        assertFalse(text.includes(form), `the secret of "${name}" reached ${where}`);
      }
    }
  }
}

/** Every call is in `got`: a secret case with all its keys and a redaction, an ordinary one as sent. */
function assertCalls(got: Args[], sent: Args[], where: string): void {
  const calls = byCall(got);
  SECRET_CASES.forEach(({ name }, n) => {
    const args = calls.get(n);
    assert(args, `"${name}" is missing from ${where}`);
    assertEquals(Object.keys(args).sort(), Object.keys(sent[n]!).sort(), `"${name}" in ${where}`);
    assertStringIncludes(JSON.stringify(args), REDACTED, `"${name}" in ${where}`);
  });
  ORDINARY_CASES.forEach(({ name }, i) => {
    const n = SECRET_CASES.length + i;
    assertEquals(calls.get(n), sent[n], `"${name}" in ${where}`);
  });
}

Deno.test("redaction: no secret reaches the log, a sink, read_interactions or comms.jsonl; ordinary arguments are kept", async (t) => {
  assert(SECRET_CASES.length >= 40, `only ${SECRET_CASES.length} secret cases`);
  await using root = await tempDir();
  await using records = await tempDir();
  const received = `${records.path}/obs.jsonl`;
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  const obs = { command: Deno.execPath(), args: ["run", "--allow-write", SINK, "good", received] };
  // The user's own .mcp.json, outside the roots (one inside starts no peer until trusted).
  await Deno.writeTextFile(`${records.path}/.mcp.json`, JSON.stringify({ mcpServers: { obs } }));
  const config = `${records.path}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify({ sinks: { mcpJson: ".mcp.json" } }));
  await using session = await connectStdio([root.path], {
    config,
    env: { EFFERENT_COPY_ENABLE: "1" },
  });
  await waitForStderr(session, /efferent copy: 1 sink \(obs\)/);

  const sent = [...SECRET_CASES, ...ORDINARY_CASES].map(({ args }, n) => callArgs(n, args));
  await callAll(session, sent, received);

  await t.step("the log on disk", async () => {
    const text = await waitFor(
      "every call in the log",
      () => logFiles(root.path),
      (text) =>
        jsonLines<Logged>(text).filter((line) => line.tool === "read_file").length >= sent.length,
    );
    assertNoSecret(text, "the log");
    const logged = jsonLines<Logged>(text).filter((line) => line.tool === "read_file");
    assertCalls(logged.map((line) => line.args), sent, "the log");
  });

  await t.step("the sink", async () => {
    const { text, copies } = await copiesAt(received);
    assertNoSecret(text, "the sink");
    const before = copies.filter((line) => !("result" in line)).map((line) => line.args);
    const after = copies.filter((line) => "result" in line).map((line) => line.args);
    assertCalls(before, sent, "the copies sent before the calls");
    assertCalls(after, sent, "the copies sent after the calls");
  });

  await t.step("read_interactions", async () => {
    const { pages, logged } = await readInteractions(session);
    assertNoSecret(pages, "read_interactions");
    assertCalls(logged, sent, "read_interactions");
  });

  await t.step("the session log (comms.jsonl)", async () => {
    const text = await waitFor(
      "every call in comms.jsonl",
      () => commsFiles(root.path),
      (text) => commsCalls(text).length >= sent.length,
    );
    assertNoSecret(text, "comms.jsonl");
    assertCalls(commsCalls(text), sent, "comms.jsonl");
  });
});
