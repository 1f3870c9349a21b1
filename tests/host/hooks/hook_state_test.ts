/**
 * The Hook API's record and seed 001's GUI endpoints in this host's terms,
 * over real HTTP on a host started the way a user starts it: every request
 * in the session's `apihooks.jsonl` (never the token), errors as plain
 * JSON (the 401 naming `hooks-token` and its file), the seed's GUI paths
 * answering 404 with their replacement, and the replacements — what runs
 * now, what waits, named values, a human's note, and tightening the host.
 *
 * @module
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { exists } from "../../security/_shell.ts";
import { resultText } from "../../_mcp.ts";
import { legacyClient } from "../transports/_http.ts";
import { hookFetch, type HooksHost, launchWithHooks } from "./_hooks.ts";
import type { CallToolResult } from "@modelcontextprotocol/client";

/** The JSON lines of a file in the host's session folder (found through `GET /api/session`). */
async function sessionLines(
  root: string,
  host: HooksHost,
  name: string,
): Promise<Array<Record<string, unknown>>> {
  const { id } = await host.hooks.session();
  const text = await Deno.readTextFile(`${root}/.toolhost/sessions/${id}/${name}`);
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/** A response's JSON body. */
async function bodyOf(response: Response): Promise<Record<string, unknown>> {
  return await response.json() as Record<string, unknown>;
}

/** The audit file's lines. */
async function auditLines(root: string): Promise<Array<Record<string, unknown>>> {
  const text = await Deno.readTextFile(`${root}/.toolhost/approvals.jsonl`);
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("hook API: every request is in the session's apihooks.jsonl with its caller, never the token, up to the session's cap", async () => {
  await using root = await tempDir();
  const cap = 64 * 1024;
  await using host = await launchWithHooks(root.path, {
    log: { sessions: { maxSessionBytes: cap } },
  });
  const wrong = "wrong-token-wrong-token-wrong-token-wrong";
  const sent: Array<[string, string, number, string, { token?: string | null; origin?: string }]> =
    [
      ["GET", "/status", 200, "hooks-token", {}],
      ["GET", "/api/performance", 401, "none", { token: null }],
      ["GET", "/api/performance", 401, "wrong", { token: wrong }],
      ["GET", "/", 200, "none", { token: null }],
      ["GET", "/api/nothing-here", 404, "hooks-token", {}],
      ["POST", "/status", 405, "hooks-token", {}],
      ["GET", "/status", 403, "unchecked", { origin: "http://evil.example" }],
    ];
  for (const [method, path, status, , how] of sent) {
    const response = await hookFetch(host, path, {
      method,
      ...(how.token === undefined ? {} : { token: how.token }),
      ...(how.origin ? { headers: { Origin: how.origin } } : {}),
    });
    assertEquals(response.status, status, `${method} ${path}`);
    await response.body?.cancel();
  }
  const lines = await sessionLines(root.path, host, "apihooks.jsonl");
  // The last line is GET /api/session, which found the session's folder (a line is written as its
  // request is answered); the ones before it are the requests sent above.
  assertEquals([lines.at(-1)?.path, lines.at(-1)?.status], ["/api/session", 200]);
  const mine = lines.slice(-sent.length - 1, -1);
  assertEquals(
    mine.map((
      line,
    ) => [line.method, line.path, line.status, (line.caller as { token: string }).token]),
    sent.map(([method, path, status, token]) => [method, path, status, token]),
  );
  for (const line of mine) {
    assertMatch(String((line.caller as { address: string }).address), /^127\.0\.0\.1:\d+$/);
    assert(typeof line.duration_ms === "number" && line.duration_ms >= 0, JSON.stringify(line));
    assert(!Number.isNaN(Date.parse(String(line.ts))), JSON.stringify(line));
  }
  const text = await Deno.readTextFile(
    `${root.path}/.toolhost/sessions/${(await host.hooks.session()).id}/apihooks.jsonl`,
  );
  assert(!text.includes(host.token), "the token is never logged");
  assert(!text.includes(wrong), "a wrong token is never logged either");
  // Past the session's cap, one line says so and nothing more is written.
  for (let i = 0; i < Math.ceil(cap / 100); i++) {
    const response = await hookFetch(host, "/status");
    await response.body?.cancel();
  }
  const path = `${root.path}/.toolhost/sessions/${(await host.hooks.session()).id}/apihooks.jsonl`;
  const full = await Deno.readTextFile(path);
  assert(new TextEncoder().encode(full).length <= cap, `${full.length} characters`);
  const last = JSON.parse(full.trim().split("\n").at(-1)!);
  assertStringIncludes(String(last.note), `reached its cap of ${cap} bytes`);
  const more = await hookFetch(host, "/status");
  await more.body?.cancel();
  assertEquals(await Deno.readTextFile(path), full);
});

Deno.test("hook API: one host with the default settings, each case in turn", async (t) => {
  // These cases launch the same host (the Hook API on, nothing else set) and count nothing another
  // case adds to; the tightening case comes last, as what it switches off stays off.
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await using host = await launchWithHooks(root.path);

  await t.step(
    "hook API: errors are plain JSON; the 401 names hooks-token and its file; seed 001's GUI paths name their replacements",
    async () => {
      const tokenFile = `${await Deno.realPath(root.path)}/.toolhost/hooks-token`;
      const refused = await hookFetch(host, "/api/overview", { token: null });
      assertEquals(refused.status, 401);
      const body401 = await bodyOf(refused);
      assertEquals(body401.token_file, tokenFile);
      assertStringIncludes(String(body401.error), "hooks-token");
      assertStringIncludes(String(body401.error), "not the MCP clients' http-token");
      // The file it names holds the token that opens the API.
      assertEquals((await Deno.readTextFile(tokenFile)).trim(), host.token);
      const errors = [
        await hookFetch(host, "/api/overview", { token: null }),
        await hookFetch(host, "/api/overview", { headers: { Origin: "http://evil.example" } }),
        await hookFetch(host, "/api/none"),
        await hookFetch(host, "/api/overview", { method: "DELETE" }),
      ];
      assertEquals(errors.map((each) => each.status), [401, 403, 404, 405]);
      for (const response of errors) {
        const body = await bodyOf(response);
        assertEquals(typeof body.error, "string", JSON.stringify(body));
        assert(!("jsonrpc" in body), `no JSON-RPC envelope: ${JSON.stringify(body)}`);
      }
      const seed: Array<[string, string, string | string[]]> = [
        ["GET", "/api/gui/value", "GET /api/values"],
        ["GET", "/api/gui/value/todos", "GET /api/values/todos"],
        ["GET", "/api/gui/mma_status", "GET /api/overview"],
        ["GET", "/api/gui/diagnostics", "GET /api/diagnostics"],
        ["POST", "/api/gui", [
          "POST /api/approvals/<id>",
          "POST /api/ask/respond",
          "POST /api/session",
          "POST /api/project",
        ]],
      ];
      for (const [method, path, replacement] of seed) {
        // The token is asked for here too.
        const body = method === "POST" ? {} : undefined;
        const anonymous = await hookFetch(host, path, { method, token: null, body });
        assertEquals(anonymous.status, 401, `${method} ${path} without the token`);
        await anonymous.body?.cancel();
        const moved = await hookFetch(host, path, { method, body });
        assertEquals(moved.status, 404, `${method} ${path}`);
        const answer = await bodyOf(moved);
        assertEquals(answer.replacement, replacement);
        assertStringIncludes(String(answer.error), "seed 001's; toolhost serves");
      }
    },
  );

  await t.step(
    "hook API: named values, and a human's note reaches the session log and bootstrap_body_state",
    async () => {
      const mcp = await legacyClient(host.http, "values");
      const todos = [
        { content: "ship it", status: "in_progress" },
        { content: "old chore", status: "completed" },
      ];
      await mcp.callTool({ name: "todo_write", arguments: { todos } });
      const names = await bodyOf(await hookFetch(host, "/api/values"));
      assertEquals(
        (names.values as Array<{ name: string }>).map((each) => each.name).sort(),
        ["anchors", "notes", "status", "todos", "tools"],
      );
      assertEquals(
        await host.hooks.value("todos"),
        todos.map((item, i) => ({ number: i + 1, ...item })),
      );
      const tools = await host.hooks.value("tools") as { listed: string[]; disabled: string[] };
      assert(tools.listed.includes("read_file"));
      assertEquals(tools.disabled, []);
      const status = await host.hooks.value("status") as Record<string, unknown>;
      assert("landlock" in status && "sandbox" in status, JSON.stringify(status));
      const anchors = await host.hooks.value("anchors") as Array<{ key: string; chars: number }>;
      for (const { key, chars } of anchors) {
        const one = await host.hooks.value(`anchors/${key}`) as { content: string };
        assertEquals(one.content.length, chars);
      }
      const missing = await hookFetch(host, "/api/values/nope");
      assertEquals(missing.status, 404);
      assertEquals((await bodyOf(missing)).values, [
        "anchors",
        "todos",
        "notes",
        "status",
        "tools",
      ]);

      const seedShaped = await hookFetch(host, "/api/session", {
        method: "POST",
        body: { session: { entries: [] } },
      });
      assertEquals(seedShaped.status, 400);
      assertStringIncludes(String((await bodyOf(seedShaped)).error), '{"note"');
      const note = "Stop after the tests pass; do not touch deploy/";
      await host.hooks.note(note, "ana");
      const notes = await host.hooks.value("notes") as Array<
        { ts: string; text: string; by: string }
      >;
      assertEquals(notes.map((each) => [each.text, each.by]), [[note, "ana"]]);
      assert(!Number.isNaN(Date.parse(notes[0]!.ts)));
      const logged = await sessionLines(root.path, host, "notes.jsonl");
      assertEquals(logged.map((line) => [line.note, line.by]), [[note, "ana"]]);
      const state = await mcp.callTool({ name: "bootstrap_body_state", arguments: {} });
      const packet = state.structuredContent as {
        human_notes: Array<{ text: string; by?: string }>;
      };
      assertEquals(packet.human_notes.map((each) => [each.text, each.by]), [[note, "ana"]]);
      assertStringIncludes(resultText(state as CallToolResult), `ana: ${note}`);
      await mcp.close();
    },
  );

  await t.step(
    "hook API: POST /api/project only tightens — a tool switched off is refused, an added rule holds calls, both audited",
    async () => {
      const mcp = await legacyClient(host.http, "tighten");
      const refusals: Array<[unknown, string]> = [
        [{ project: { tools: {} } }, "only tightens the running host"],
        [{ enable_tools: ["read_file"] }, 'Cannot tighten with "enable_tools"'],
        [{ disable_tools: ["no_such_tool"] }, 'Cannot switch off "no_such_tool"'],
        [{ approvals: [{ scope: "call" }] }, "an approval rule names tools or classes"],
        [{}, "Cannot tighten with nothing"],
      ];
      for (const [body, message] of refusals) {
        const response = await hookFetch(host, "/api/project", { method: "POST", body });
        assertEquals(response.status, 400, JSON.stringify(body));
        assertStringIncludes(String((await bodyOf(response)).error), message);
      }
      // Before any change, the tool runs.
      const before = await mcp.callTool({ name: "read_file", arguments: { path: "a.txt" } });
      assertStringIncludes(resultText(before as CallToolResult), "alpha");
      await host.hooks.tighten({ disable_tools: ["read_file"], by: "ana", reason: "audit" });
      const off = await mcp.callTool({ name: "read_file", arguments: { path: "a.txt" } });
      assert(off.isError);
      assertMatch(
        resultText(off as CallToolResult),
        /^approval_denied: "read_file" was switched off/,
      );
      assert(!resultText(off as CallToolResult).includes("alpha"));
      // A rule by class: create_directory is not read-only, so it writes.
      await host.hooks.tighten({ approvals: [{ classes: ["write"] }] });
      const cursor = (await host.hooks.events()).cursor;
      const made = mcp.callTool({ name: "create_directory", arguments: { path: "made" } });
      const asked = await host.hooks.waitForEvent("approval_asked", { after: cursor });
      assertEquals([asked.data.tool, asked.data.matched], ["create_directory", ["write"]]);
      assertEquals(await exists(`${root.path}/made`), false);
      const [waiting] = await host.hooks.approvals();
      assertEquals(waiting?.id, asked.data.id);
      await host.hooks.approve(String(asked.data.id), { by: "ana" });
      assert(!(await made).isError);
      assert((await Deno.stat(`${root.path}/made`)).isDirectory);
      const project = await host.hooks.project() as {
        tightened: {
          disabled_tools: Array<{ tool: string; by: string }>;
          approval_rules: unknown[];
        };
      };
      assertEquals(project.tightened.disabled_tools.map((each) => [each.tool, each.by]), [
        ["read_file", "ana"],
      ]);
      assertEquals(project.tightened.approval_rules.length, 1);
      await mcp.close();
      await host.http.stop();
      const audit = await auditLines(root.path);
      assertEquals(
        audit.map((line) => [line.change ?? line.decision, line.tool ?? null]),
        [
          ["tightened", null],
          ["denied", "read_file"],
          ["tightened", null],
          ["approved", "create_directory"],
        ],
      );
      assertEquals(audit[0]!.disable_tools, ["read_file"]);
      assertMatch(String(audit[0]!.caller), /^127\.0\.0\.1:\d+$/);
    },
  );
});

Deno.test({
  name:
    "hook API: diagnostics and the overview show the calls in flight, the shell command, what waits, the open todos",
  // run_shell runs in bubblewrap (CI installs it); elsewhere the test says it did not run.
  ignore: !canRun("bwrap"),
  async fn() {
    await using root = await tempDir();
    await using host = await launchWithHooks(root.path, {
      approvals: [{ tools: ["write_file", "run_shell"], elicitation: false }],
      hooks: { askTimeoutS: 60 },
    });
    const mcp = await legacyClient(host.http, "inflight");
    await mcp.callTool({
      name: "todo_write",
      arguments: { todos: [{ content: "review", status: "pending" }] },
    });
    const cursor = (await host.hooks.events()).cursor;
    const write = mcp.callTool({
      name: "write_file",
      arguments: { path: "w.txt", content: "w\n" },
    });
    const shell = mcp.callTool({ name: "run_shell", arguments: { command: "echo shell-ran" } });
    const asked = host.hooks.ask({ question: "Deploy?" });
    for (const tool of ["write_file", "run_shell"]) {
      await host.hooks.waitForEvent("approval_asked", {
        after: cursor,
        match: (event) => event.data.tool === tool,
      });
    }
    const ask = await host.hooks.waitForEvent("ask_received", { after: cursor });
    const diagnostics = await host.hooks.diagnostics() as {
      busy: boolean;
      live: boolean;
      calls: Array<{ tool: string; kind: string; waiting_for_approval: boolean; args: unknown }>;
      shell_commands: Array<{ tool: string; args: { command: string } }>;
      fetches: unknown[];
      approvals_waiting: number;
      asks_waiting: number;
    };
    assertEquals([diagnostics.busy, diagnostics.live], [true, true]);
    assertEquals(
      diagnostics.calls.map((call) => [call.tool, call.kind, call.waiting_for_approval]).sort(),
      [["run_shell", "shell", true], ["write_file", "call", true]],
    );
    assertEquals(diagnostics.shell_commands.map((call) => call.args.command), ["echo shell-ran"]);
    assertEquals(diagnostics.fetches, []);
    assertEquals([diagnostics.approvals_waiting, diagnostics.asks_waiting], [2, 1]);
    const overview = await host.hooks.overview() as {
      sessions: Array<{ client: string }>;
      running: number;
      approvals_waiting: Array<{ id: string; tool: string }>;
      asks_waiting: Array<{ request_id: string; data: unknown }>;
      open_todos: Array<{ number: number; content: string }>;
    };
    assertEquals(overview.sessions.map((each) => each.client), ["inflight/1.0.0"]);
    assertEquals(overview.running, 2);
    const pending = await host.hooks.approvals();
    assertEquals(
      overview.approvals_waiting.map((each) => each.id).sort(),
      pending.map((each) => each.id).sort(),
    );
    assertEquals(overview.asks_waiting.map((each) => [each.request_id, each.data]), [
      [ask.data.request_id, { question: "Deploy?" }],
    ]);
    assertEquals(overview.open_todos.map((each) => [each.number, each.content]), [[1, "review"]]);
    for (const each of pending) await host.hooks.approve(each.id);
    await host.hooks.respond(String(ask.data.request_id), "no");
    await asked;
    assertStringIncludes(resultText(await shell as CallToolResult), "shell-ran");
    assert(!(await write).isError);
    const after = await host.hooks.diagnostics() as { busy: boolean; calls: unknown[] };
    assertEquals([after.busy, after.calls], [false, []]);
    await mcp.close();
  },
});
