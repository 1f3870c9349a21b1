/**
 * Stdio's direct route answers as the SDK's route does, on the host as
 * `mcp-config` launches it. Two processes over two identical roots get the
 * same calls in the same order: one as plain requests, which the direct
 * route takes, the other each with one more `_meta` member, which it leaves
 * to the SDK (its request and result checks). Every answer must be the same,
 * the roots' paths aside; the SDK's answers also hold the direct route to
 * the SDK's result schema, which it does not check itself.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import {
  initialize,
  longGrep,
  type Message,
  progressOf,
  type RawServer,
  slowTree,
  startRaw,
  waitFor,
} from "./stdio_raw.ts";

/** The calls: reads, listings, searches, code, edits and their errors, progress asked for. */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ["read_file", { path: "small.txt" }],
  ["read_file", { path: "missing.txt" }],
  ["read_files", { paths: ["small.txt", "code.py"] }],
  ["get_file_slice", { path: "code.py", start_line: 2, end_line: 4 }],
  ["get_file_info", { path: "small.txt" }],
  ["list_directory", { path: "." }],
  ["get_tree", { path: "." }],
  ["search_files", { pattern: "*.py" }],
  ["grep", { pattern: "def " }],
  ["py_get_code_outline", { path: "code.py" }],
  ["py_get_definition", { path: "code.py", name: "greet" }],
  ["edit_file", { path: "small.txt", old_string: "absent", new_string: "x" }],
  ["edit_file", { path: "small.txt", old_string: "hello", new_string: "hi", replace_all: true }],
  ["read_file", { path: "small.txt" }],
  ["write_file", { path: "new.txt", content: "new\n" }],
  ["read_file", { path: "../outside.txt" }],
  ["read_file", { path: 3 }],
];

async function project(): Promise<AsyncDisposable & { path: string }> {
  const root = await tempDir();
  await Deno.writeTextFile(`${root.path}/small.txt`, "hello, toolhost\n".repeat(3));
  await Deno.writeTextFile(
    `${root.path}/code.py`,
    "import os\n\ndef greet(name):\n    return f'hi {name}'\n\nclass A:\n    def m(self):\n        pass\n",
  );
  // The same times in both roots: `get_file_info` says them.
  const when = new Date("2026-01-02T03:04:05Z");
  for (const name of ["small.txt", "code.py"]) await Deno.utime(`${root.path}/${name}`, when, when);
  return root;
}

/**
 * Each call's answer (its whole JSON-RPC message, id aside), in order, the
 * root's path as `<root>`; and which member each answer wrote first.
 */
async function answers(
  server: RawServer,
  root: string,
  meta: Message,
): Promise<{ out: string[]; first: string[] }> {
  await initialize(server);
  const out: string[] = [];
  const first: string[] = [];
  for (const [i, [name, args]] of CALLS.entries()) {
    const id = 10 + i;
    await server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: { progressToken: `p${id}`, ...meta } },
    });
    await waitFor(server, `the answer to ${name}`, (message) => message.id === id);
    const { id: _, ...answer } = server.messages.find((message) => message.id === id)!;
    out.push(JSON.stringify(sorted(answer)).replaceAll(root, "<root>"));
    first.push(Object.keys(answer)[0]!);
  }
  return { out, first };
}

/** A JSON value with its objects' members in one order (the SDK's result check reorders them). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).sort(([a], [b]) => a < b ? -1 : 1).map(([k, v]) => [k, sorted(v)]),
  );
}

Deno.test("stdio: the direct route's answers are the SDK route's, call by call", async () => {
  await using direct = await project();
  await using sdk = await project();
  const servers = [await startRaw([direct.path], "off"), await startRaw([sdk.path], "off")];
  try {
    const viaDirect = await answers(servers[0]!, direct.path, {});
    const viaSdk = await answers(servers[1]!, sdk.path, { "toolhost.test/route": "sdk" });
    // Which route answered shows in the line: the SDK writes its response object's `result`
    // first, the direct route `jsonrpc`.
    assertEquals(new Set(viaDirect.first), new Set(["jsonrpc"]), "the direct route answered");
    assertEquals(new Set(viaSdk.first), new Set(["result"]), "the SDK answered");
    for (const [i, [name]] of CALLS.entries()) {
      assertEquals(viaDirect.out[i], viaSdk.out[i], `call ${i} (${name})`);
    }
  } finally {
    for (const server of servers) {
      server.child.kill();
      await server.child.status;
    }
  }
});

Deno.test("stdio: a cancellation the SDK would ignore leaves a call running on either route", async () => {
  await using root = await tempDir();
  // Three steps of 100 files: the cancellations come after the first, two are left.
  await slowTree(root.path, 3, 100);
  const server = await startRaw([root.path], "off");
  try {
    await initialize(server);
    // Grep 2 takes the direct route; grep 3, with one more `_meta` member, the SDK's.
    const viaSdk = longGrep(3);
    const params = viaSdk.params as { _meta: Record<string, unknown> };
    params._meta["toolhost.test/route"] = "sdk";
    await server.send(longGrep(2));
    await server.send(viaSdk);
    for (const id of [2, 3]) await waitFor(server, `progress of grep ${id}`, progressOf(id));
    // The SDK checks a cancellation's reason is a string, and ignores one that is not.
    for (const id of [2, 3]) {
      await server.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: 42 },
      });
    }
    // The host reads its input in order: once the ping is answered it has read both cancellations.
    await server.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    for (const id of [2, 3, 4]) await waitFor(server, `the answer to ${id}`, (m) => m.id === id);
    const answered = (id: number) => server.messages.findIndex((m) => m.id === id);
    for (const id of [2, 3]) {
      assert(answered(id) > answered(4), `grep ${id} ended before its cancellation was read`);
    }
    const [direct, sdk] = [2, 3].map((id) => server.messages.find((m) => m.id === id)!.result);
    assertEquals(direct, sdk, "both greps ran to the end and found the same");
  } finally {
    server.child.kill();
    await server.child.status;
  }
});
