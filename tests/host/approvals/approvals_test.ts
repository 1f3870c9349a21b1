/**
 * Approvals as a module: which calls a rule holds, the arguments' hash, the
 * answers it refuses, cancellation, and the events' cursors and bounds.
 *
 * @module
 */

import { assert, assertEquals } from "../../_assert.ts";
import {
  Approvals,
  argsHash,
  HookEvents,
  INPUT_REQUIRED_META,
} from "../../../host/approvals/mod.ts";
import { classesOf } from "../../../host/_approval_wiring.ts";
import { Registry } from "../../../tools/registry.ts";
import { fetchUrl } from "../../../tools/web/fetch_url.ts";
import { webSearch } from "../../../tools/web/web_search.ts";
import { Dispatcher } from "../../../host/providers/mod.ts";
import { RoundStates } from "../../../host/approvals/_rounds.ts";
import type { ApprovalRule } from "../../../host/config/mod.ts";
import type { CallRecord } from "../../../tools/calls.ts";
import type { ToolResult } from "../../../tools/tool.ts";

const rule = (over: Partial<ApprovalRule>): ApprovalRule => ({
  tools: [],
  classes: [],
  scope: "call",
  timeoutMs: 60_000,
  elicitation: true,
  ...over,
});

function call(tool: string, args: unknown, session = "s1"): CallRecord {
  return { tool, args, session, client: "test/1", started: new Date() };
}

function approvals(rules: ApprovalRule[], events = new HookEvents()) {
  const audit: Array<Record<string, unknown>> = [];
  const held = new Approvals(rules, {
    classify: (
      tool,
    ) => (tool === "run_shell" ? ["exec", "write"] : tool === "read_file" ? [] : ["write"]),
    audit: (line) => audit.push(line),
    onEvent: (type, data) => events.emit(type, data),
  });
  return { held, audit, events };
}

Deno.test("approvals: rules hold tools by glob or class, and nothing else", async () => {
  const { held, events } = approvals([
    rule({ tools: ["fs__*", "edit_?ile"] }),
    rule({ classes: ["exec"] }),
  ]);
  assertEquals(await held.gate(call("read_file", {}), {}), undefined);
  assertEquals(await held.gate(call("fs", {}), {}), undefined);
  for (const tool of ["fs__write", "edit_file", "run_shell"]) {
    const cursor = events.cursor;
    const verdict = held.gate(call(tool, { n: 1 }), {});
    const asked = await nextAsked(events, cursor);
    assertEquals(asked.data.tool, tool);
    assertEquals(held.answer(String(asked.data.id), { approve: true }, "hook_api"), "answered");
    assertEquals((await verdict)?.approval.decision, "approved");
  }
});

Deno.test("approvals: the hash binds the exact tool and arguments, whatever the key order", async () => {
  assertEquals(
    await argsHash("t", { a: 1, b: [1, { d: 2, c: 3 }] }),
    await argsHash("t", { b: [1, { c: 3, d: 2 }], a: 1 }),
  );
  assert(await argsHash("t", { a: 1 }) !== await argsHash("t", { a: 2 }));
  assert(await argsHash("t", { a: 1 }) !== await argsHash("u", { a: 1 }));
  const { held, events } = approvals([rule({ tools: ["write_file"] })]);
  const args = { path: "a", content: "x" };
  const verdict = held.gate(call("write_file", args), {});
  await nextAsked(events, 0);
  const [pending] = held.pending();
  // The call runs with the arguments the human saw, even if the caller's object changes later.
  args.content = "changed";
  assertEquals(
    held.answer(pending!.id, { approve: true, args_hash: "f".repeat(64) }, "hook_api"),
    "mismatch",
  );
  assertEquals(held.answer(pending!.id, { approve: true, scope: "session" }, "hook_api"), "scope");
  assertEquals(held.answer("nope", { approve: true }, "hook_api"), "unknown");
  assertEquals(
    held.answer(pending!.id, { approve: true, args_hash: pending!.args_hash }, "hook_api"),
    "answered",
  );
  assertEquals((await verdict)?.args, { path: "a", content: "x" });
  assertEquals(
    held.answer(pending!.id, { approve: false }, "hook_api"),
    "unknown",
    "answered once",
  );
  assertEquals(events.after(0).events.map((event) => event.type), [
    "approval_asked",
    "approval_answered",
  ]);
});

Deno.test("approvals: a cancelled call stops waiting, is refused, and is audited", async () => {
  const { held, audit, events } = approvals([rule({ tools: ["write_file"] })]);
  const abort = new AbortController();
  const verdict = held.gate(call("write_file", {}), { signal: abort.signal });
  await nextAsked(events, 0);
  assertEquals(held.pending().length, 1);
  abort.abort();
  const result = await verdict;
  assertEquals(result?.approval.decision, "cancelled");
  assert(refusalText(result?.refusal).startsWith("cancelled:"));
  assertEquals(held.pending(), []);
  assertEquals(audit.map((line) => line.decision), ["cancelled"]);
});

Deno.test("approvals: a denial through elicitation says the user's reason", async () => {
  const { held } = approvals([rule({ tools: ["write_file"] })]);
  const result = await held.gate(call("write_file", { a: 1 }), {
    elicit: () =>
      Promise.resolve({ action: "accept", content: { approve: false, reason: "not now" } }),
  });
  assertEquals(result?.approval.via, "elicitation");
  assertEquals(refusalText(result?.refusal).split(";")[0], "approval_denied: not now");
});

Deno.test("events: readers page with their own cursors; the history is bounded and says what a slow reader missed", async () => {
  const events = new HookEvents(() => new Date(0), 5);
  for (let i = 1; i <= 8; i++) events.emit("tick", { i });
  const page = events.after(0, 2);
  assertEquals(page.events.map((event) => event.seq), [4, 5]);
  assertEquals(page.missed, 3);
  assertEquals(events.after(page.cursor).events.map((event) => event.seq), [6, 7, 8]);
  assertEquals(events.after(8), { events: [], cursor: 8, missed: 0 });
  // A cursor from before a restart reads from the oldest kept.
  assertEquals(events.after(99).events[0]?.seq, 4);
  const waiting = events.next(8, 60_000);
  events.emit("tock", {});
  assertEquals((await waiting).events.map((event) => event.type), ["tock"]);
  const stop = new AbortController();
  const stopped = events.next(9, 60_000, stop.signal);
  stop.abort();
  assertEquals((await stopped).events, []);
});

function refusalText(result: ToolResult | undefined): string {
  const block = result?.content[0];
  return block?.type === "text" ? block.text : "";
}

/** The first approval asked after a cursor (waiting for it). */
async function nextAsked(events: HookEvents, after: number) {
  for (let cursor = after;;) {
    const page = await events.next(cursor, 10_000);
    const asked = page.events.find((event) => event.type === "approval_asked");
    if (asked) return asked;
    if (page.events.length === 0) throw new Error("no approval was asked");
    cursor = page.cursor;
  }
}

Deno.test("round states: this host's, for exactly one tool and hash, unexpired, taken once", async () => {
  let now = 1_000;
  const states = new RoundStates(() => now);
  const state = await states.mint({ id: "a", tool: "write_file", hash: "h1", exp: 5_000 });
  assertEquals(await states.take(state, "write_file", "h2"), undefined, "other arguments");
  assertEquals(await states.take(state, "edit_file", "h1"), undefined, "another tool");
  const [payload, signature] = state.split(".");
  const forged = btoa(JSON.stringify({ id: "a", tool: "write_file", hash: "h2", exp: 5_000 }))
    .replace(/=+$/, "");
  assertEquals(
    await states.take(`${forged}.${signature}`, "write_file", "h2"),
    undefined,
    "forged",
  );
  assertEquals(
    await new RoundStates(() => now).take(state, "write_file", "h1"),
    undefined,
    "another host",
  );
  assertEquals((await states.take(state, "write_file", "h1"))?.id, "a");
  assertEquals(await states.take(state, "write_file", "h1"), undefined, "taken once");
  const late = await states.mint({ id: "b", tool: "t", hash: "h", exp: 2_000 });
  now = 3_000;
  assertEquals(await states.take(late, "t", "h"), undefined, "expired");
  assertEquals(await states.take(`${payload}`, "t", "h"), undefined, "no signature");
});

Deno.test("approvals: run_shell, git and bd are exec; read-only tools are neither write nor exec", () => {
  const parts = { tools: () => [], upstreams: [] };
  for (const tool of ["run_shell", "git_status"]) {
    assert(classesOf(tool, parts).includes("exec"), tool);
  }
  const readOnly = {
    tools: () => [{
      name: "read_file",
      description: "",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    }],
    upstreams: [],
  };
  assertEquals(classesOf("read_file", readOnly), []);
  const upstream = {
    tools: () => [],
    upstreams: [{
      list: () => [{ name: "fs__write", description: "", inputSchema: {}, annotations: {} }],
    }],
  };
  assertEquals(classesOf("fs__write", upstream), ["write", "upstream"]);
});

Deno.test("approvals: fetch_url and web_search, as listed, are class net (and read-only)", () => {
  const listed = new Registry([fetchUrl, webSearch]).list();
  const parts = { tools: () => listed, upstreams: [] };
  assertEquals(classesOf("fetch_url", parts), ["net"]);
  assertEquals(classesOf("web_search", parts), ["net"]);
});

Deno.test("approvals: a rule without elicitation never asks the client's user", async () => {
  const { held, events } = approvals([rule({ tools: ["write_file"], elicitation: false })]);
  let asked = 0;
  const verdict = held.gate(call("write_file", {}), {
    elicit: () => (asked++, Promise.resolve({ action: "accept", content: { approve: true } })),
    rounds: { answer: undefined, state: undefined },
  });
  const event = await nextAsked(events, 0);
  assertEquals(asked, 0);
  assertEquals(
    held.answer(String(event.data.id), { approve: false, reason: "no" }, "hook_api"),
    "answered",
  );
  assertEquals((await verdict)?.approval.via, "hook_api");
});

Deno.test("approvals: a call cancelled before it waits leaves no timer behind", async () => {
  const { held } = approvals([rule({ tools: ["write_file"] })]);
  const abort = new AbortController();
  abort.abort();
  const result = await held.gate(call("write_file", {}), {
    signal: abort.signal,
    onProgress: () => {},
  });
  // Deno's test sanitizers fail the test if the timeout or the progress interval still runs.
  assertEquals(result?.approval.decision, "cancelled");
});

Deno.test("approvals: a session grant is audited at each call it lets through", async () => {
  const { held, audit, events } = approvals([rule({ tools: ["edit_file"], scope: "session" })]);
  const first = held.gate(call("edit_file", { a: 1 }), {});
  const asked = await nextAsked(events, 0);
  held.answer(String(asked.data.id), { approve: true, scope: "session" }, "dashboard");
  await first;
  const second = await held.gate(call("edit_file", { a: 2 }), {});
  assertEquals(second?.approval.via, "session_grant");
  assertEquals(audit.map((line) => [line.decision, line.via]), [
    ["approved", "dashboard"],
    ["approved", "session_grant"],
  ]);
  held.endSession("s1");
  const third = held.gate(call("edit_file", { a: 3 }), {});
  const again = await nextAsked(events, asked.seq);
  held.answer(String(again.data.id), { approve: false }, "hook_api");
  assertEquals((await third)?.approval.decision, "denied");
});

Deno.test("dispatcher: a provider's result cannot carry an input-required round to the client", async () => {
  const provider = {
    name: "fake",
    list: () => [{ name: "t", description: "", inputSchema: {}, annotations: {} }],
    call: () =>
      Promise.resolve({
        result: {
          content: [{ type: "text" as const, text: "x" }],
          _meta: {
            [INPUT_REQUIRED_META]: { message: "approve me", schema: {}, state: "s" },
            kept: 1,
          },
        },
        paths: [],
      }),
  };
  const result = await new Dispatcher([provider]).call("t", {}, { session: "s", client: "c" });
  assertEquals(result._meta, { kept: 1 });
});

Deno.test("dispatcher: only a wait for a human is waitedMs; the observers hear it begin and, approved, end", async () => {
  const { held, events } = approvals([rule({ tools: ["t"], scope: "session" })]);
  const provider = {
    name: "fake",
    list: () => [{ name: "t", description: "", inputSchema: {}, annotations: {} }],
    call: () =>
      Promise.resolve({ result: { content: [{ type: "text" as const, text: "x" }] }, paths: [] }),
  };
  const heard: string[] = [];
  const outcomes: Array<{ waitedMs: number | undefined; decision: string | undefined }> = [];
  const dispatcher = new Dispatcher([provider], {
    gate: (call, ctx) => held.gate(call, ctx),
    observers: [{
      waiting: (call, waiting) => heard.push(`${call.tool} ${waiting ? "waits" : "runs"}`),
      after: (_call, outcome) =>
        outcomes.push({ waitedMs: outcome.waitedMs, decision: outcome.approval?.decision }),
    }],
  });
  const ctx = { session: "s1", client: "c" };
  const first = dispatcher.call("t", {}, ctx);
  const asked = await nextAsked(events, 0);
  assertEquals(heard, ["t waits"], "marked waiting before the question is announced");
  held.answer(String(asked.data.id), { approve: true, scope: "session" }, "hook_api");
  await first;
  // Approved for the session: the next call is let through at once, without a wait.
  await dispatcher.call("t", {}, ctx);
  dispatcher.settle();
  assertEquals(heard, ["t waits", "t runs"]);
  assertEquals(outcomes.map((each) => each.decision), ["approved", "approved"]);
  assert(outcomes[0]!.waitedMs !== undefined && outcomes[0]!.waitedMs >= 0);
  assertEquals(outcomes[1]!.waitedMs, undefined, "a session grant is no wait");
});
