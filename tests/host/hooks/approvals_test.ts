/**
 * Approvals through a real MCP client, on a host started the way a user
 * starts it: a call waits for a human, runs with exactly the approved
 * arguments, asks again for other arguments, and is refused on a denial
 * or a timeout with nothing written; other calls go on meanwhile; a client
 * that supports elicitation gets the question as elicitation.
 *
 * @module
 */

import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { exists } from "../../security/_shell.ts";
import { resultText } from "../../_mcp.ts";
import { legacyClient, logLines } from "../transports/_http.ts";
import { type HooksHost, launchWithHooks } from "./_hooks.ts";

const RULES = {
  approvals: [
    { tools: ["write_file"], scope: "call" },
    { tools: ["create_*"], timeoutS: 2 },
    { tools: ["edit_file"], scope: "session" },
  ],
};

/** The next approval asked after a cursor. */
async function nextAsked(host: HooksHost, after: number, tool: string) {
  return await host.hooks.waitForEvent("approval_asked", {
    after,
    match: (event) => event.data.tool === tool,
  });
}

Deno.test("approvals: an approved call runs with exactly its arguments; other arguments ask again; a denial writes nothing", async () => {
  await using root = await tempDir();
  await using host = await launchWithHooks(root.path, RULES);
  const mcp = await legacyClient(host.http, "approvals");
  const cursor = (await host.hooks.events()).cursor;
  const first = mcp.callTool({
    name: "write_file",
    arguments: { path: "a.txt", content: "one\n" },
  });
  const asked = await nextAsked(host, cursor, "write_file");
  assertEquals(asked.data.args, { path: "a.txt", content: "one\n" });
  const [pending] = await host.hooks.approvals();
  assertEquals(pending?.id, asked.data.id);
  assertEquals(pending?.args_hash, asked.data.args_hash);
  // Nothing is written while it waits, and an unrelated call finishes meanwhile.
  await Deno.writeTextFile(`${root.path}/b.txt`, "bee\n");
  const other = await mcp.callTool({ name: "read_file", arguments: { path: "b.txt" } });
  assertStringIncludes(resultText(other as CallToolResult), "bee");
  assertEquals(await exists(`${root.path}/a.txt`), false);
  // An answer for other arguments (another hash) is refused.
  const wrong = await fetch(new URL(`api/approvals/${pending!.id}`, host.hooksUrl), {
    method: "POST",
    headers: { Authorization: `Bearer ${host.token}` },
    body: JSON.stringify({ decision: "approve", args_hash: "0".repeat(64) }),
  });
  assertEquals(wrong.status, 409);
  await wrong.body?.cancel();
  await host.hooks.approve(pending!.id, { args_hash: pending!.args_hash, by: "test" });
  const done = await first;
  assert(!done.isError, resultText(done as CallToolResult));
  assertEquals(await Deno.readTextFile(`${root.path}/a.txt`), "one\n");
  // Other arguments: asked again (the approval was for that one call); denied, nothing written.
  const again = mcp.callTool({
    name: "write_file",
    arguments: { path: "a.txt", content: "two\n" },
  });
  const second = await nextAsked(host, asked.seq, "write_file");
  assert(second.data.args_hash !== asked.data.args_hash);
  await host.hooks.deny(String(second.data.id), "not that content");
  const denied = await again;
  assert(denied.isError);
  assertEquals(
    resultText(denied as CallToolResult).split(";")[0],
    "approval_denied: not that content",
  );
  assertEquals(await Deno.readTextFile(`${root.path}/a.txt`), "one\n");
  // The same arguments again: asked again too (an approval serves one call).
  const third = mcp.callTool({
    name: "write_file",
    arguments: { path: "a.txt", content: "one\n" },
  });
  const thirdAsked = await nextAsked(host, second.seq, "write_file");
  await host.hooks.deny(String(thirdAsked.data.id), "enough");
  assert((await third).isError);
  await mcp.close();
  await host.http.stop();
  const log = (await logLines(root.path)).filter((line) => line.tool === "write_file");
  assertEquals(log.map((line) => line.outcome), ["ok", "approval_denied", "approval_denied"]);
  const approval = log[0]!.approval as Record<string, unknown>;
  assertEquals([approval.decision, approval.via, approval.by], ["approved", "hook_api", "test"]);
  const audit = (await Deno.readTextFile(`${root.path}/.toolhost/approvals.jsonl`)).trim().split(
    "\n",
  )
    .map((line) => JSON.parse(line));
  assertEquals(audit.map((line) => line.decision), ["approved", "denied", "denied"]);
  assertEquals(audit[1].reason, "not that content");
  assertEquals(audit[0].args, { path: "a.txt", content: "one\n" });
});

// One host for these two steps: neither reads the logs or the audit, which the other's calls add
// to; the timeout's step, which finds no approval pending after, runs first.
Deno.test("approvals: on a host with the rules, a timeout and a session's approval", async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/c.txt`, "one two three\n");
  await using host = await launchWithHooks(root.path, RULES);

  await t.step(
    "approvals: unanswered, a call times out with approval_timeout and does nothing",
    async () => {
      const mcp = await legacyClient(host.http, "timeout");
      const result = await mcp.callTool({ name: "create_directory", arguments: { path: "made" } });
      assert(result.isError);
      assertStringIncludes(resultText(result as CallToolResult), "approval_timeout:");
      assertEquals(await exists(`${root.path}/made`), false);
      assertEquals(await host.hooks.approvals(), []);
      await mcp.close();
    },
  );

  await t.step(
    "approvals: approved for the session, the tool runs without asking in that session only",
    async () => {
      const mcp = await legacyClient(host.http, "session-a");
      const cursor = (await host.hooks.events()).cursor;
      const edit = (old_string: string, new_string: string, client = mcp) =>
        client.callTool({
          name: "edit_file",
          arguments: { path: "c.txt", old_string, new_string },
        });
      const first = edit("one", "1");
      const asked = await nextAsked(host, cursor, "edit_file");
      await host.hooks.approve(String(asked.data.id), { scope: "session" });
      assert(!(await first).isError);
      assert(!(await edit("two", "2")).isError, "no question for the rest of the session");
      assertEquals(await Deno.readTextFile(`${root.path}/c.txt`), "1 2 three\n");
      // Another session is asked.
      const other = await legacyClient(host.http, "session-b");
      await other.callTool({ name: "read_file", arguments: { path: "c.txt" } });
      const otherCall = edit("three", "3", other);
      const otherAsked = await nextAsked(host, asked.seq, "edit_file");
      await host.hooks.deny(String(otherAsked.data.id), "no");
      assert((await otherCall).isError);
      // A rule of one call cannot be approved for the session.
      const write = mcp.callTool({
        name: "write_file",
        arguments: { path: "d.txt", content: "d" },
      });
      const writeAsked = await nextAsked(host, otherAsked.seq, "write_file");
      const refused = await fetch(new URL(`api/approvals/${writeAsked.data.id}`, host.hooksUrl), {
        method: "POST",
        headers: { Authorization: `Bearer ${host.token}` },
        body: JSON.stringify({ decision: "approve", scope: "session" }),
      });
      assertEquals(refused.status, 400);
      await refused.body?.cancel();
      await host.hooks.deny(String(writeAsked.data.id), "no");
      assert((await write).isError);
      await mcp.close();
      await other.close();
    },
  );
});

Deno.test("approvals: a client that supports elicitation is asked through it", async () => {
  await using root = await tempDir();
  await using host = await launchWithHooks(root.path, RULES);
  const questions: string[] = [];
  const client = new Client({ name: "eliciting", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", (request: { params: { message?: unknown } }) => {
    questions.push(String(request.params.message));
    return { action: "accept", content: { approve: true } };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.http.url), {
      requestInit: { headers: host.http.headers },
    }),
  );
  const result = await client.callTool({
    name: "write_file",
    arguments: { path: "e.txt", content: "elicited\n" },
  });
  assert(!result.isError, resultText(result as CallToolResult));
  assertEquals(questions.length, 1);
  assertStringIncludes(questions[0]!, "write_file");
  assertStringIncludes(questions[0]!, "elicited");
  assertEquals(await Deno.readTextFile(`${root.path}/e.txt`), "elicited\n");
  await client.close();
  await host.http.stop();
  const audit = (await Deno.readTextFile(`${root.path}/.toolhost/approvals.jsonl`)).trim();
  assertEquals(JSON.parse(audit).via, "elicitation");
});

Deno.test("approvals: a 2026-07-28 client is asked through the input-required round trip, once per approval", async () => {
  await using root = await tempDir();
  await using host = await launchWithHooks(root.path, RULES);
  const answers = [
    { action: "accept", content: { approve: true } },
    { action: "accept", content: { approve: false, reason: "wrong file" } },
  ];
  const questions: string[] = [];
  const client = new Client({ name: "modern-eliciting", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", (request: { params: { message?: unknown } }) => {
    questions.push(String(request.params.message));
    return answers.shift() as never;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.http.url), {
      requestInit: { headers: host.http.headers },
    }),
  );
  const approved = await client.callTool({
    name: "write_file",
    arguments: { path: "m.txt", content: "modern\n" },
  });
  assert(!approved.isError, resultText(approved as CallToolResult));
  assertEquals(await Deno.readTextFile(`${root.path}/m.txt`), "modern\n");
  const denied = await client.callTool({
    name: "write_file",
    arguments: { path: "m.txt", content: "again\n" },
  });
  assert(denied.isError);
  assertEquals(resultText(denied as CallToolResult).split(";")[0], "approval_denied: wrong file");
  assertEquals(await Deno.readTextFile(`${root.path}/m.txt`), "modern\n");
  assertEquals(questions.length, 2);
  assertStringIncludes(questions[0]!, "modern");
  await client.close();
  await host.http.stop();
  const audit = (await Deno.readTextFile(`${root.path}/.toolhost/approvals.jsonl`)).trim().split(
    "\n",
  )
    .map((line) => JSON.parse(line));
  assertEquals(audit.map((line) => [line.decision, line.via]), [
    ["approved", "elicitation"],
    ["denied", "elicitation"],
  ]);
  // Each call was two requests: the round that asked, and the retry with the answer.
  const log = (await logLines(root.path)).filter((line) => line.tool === "write_file");
  assertEquals(log.map((line) => line.outcome), [
    "input_required",
    "ok",
    "input_required",
    "approval_denied",
  ]);
});
