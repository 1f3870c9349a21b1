/**
 * The Hook API over real HTTP, on a host started the way a user starts it:
 * every endpoint, the token (401) and Origin (403) checks, seed 001's
 * blocking ask, and two event readers that never take each other's events.
 * The tests that start a host with the default Hook API config share one
 * (each step's files in a folder of its own), and so do the endpoints' and
 * the ask's (a config with what each needs); those with another transport,
 * or a config inside the roots, keep their own.
 *
 * @module
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { missing, tempDir } from "../../_helpers.ts";
import { legacyClient } from "../transports/_http.ts";
import { hookFetch, launchWithHooks } from "./_hooks.ts";
import { HookClient, type HookEvent } from "../../../mod.ts";
import { launchHost, waitForStderr } from "../../_mcp.ts";

const ENDPOINTS: Array<[string, string]> = [
  ["GET", "/status"],
  ["GET", "/metrics"],
  ["GET", "/api/session"],
  ["GET", "/api/performance"],
  ["GET", "/api/events"],
  ["GET", "/api/project"],
  ["GET", "/api/approvals"],
  ["POST", "/api/approvals/some-id"],
  ["POST", "/api/ask"],
  ["POST", "/api/ask/respond"],
  ["GET", "/api/diagnostics"],
  ["GET", "/api/overview"],
  ["GET", "/api/values"],
  ["GET", "/api/values/todos"],
  ["POST", "/api/session"],
  ["POST", "/api/project"],
];

// One host for these two steps, its config with what each needs (a secret in the shell's
// environment, asks that time out after 1 s). The endpoints' step reads the Hook API's sessions and
// approvals as the host started, so it runs first, before the ask's step.
Deno.test("hook API: on a host with a secret in the shell's env and a 1 s ask timeout", async (t) => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await using host = await launchWithHooks(root.path, {
    shell: { env: { DEPLOY_TOKEN: "hunter2-not-for-tools" } },
    hooks: { askTimeoutS: 1 },
  });

  await t.step(
    "hook API: every endpoint answers, and none without the token or from another origin",
    async () => {
      assert(await host.hooks.waitForServer(10_000));
      for (const [method, path] of ENDPOINTS) {
        const body = method === "POST" ? {} : undefined;
        for (const token of [null, "wrong-token-wrong-token-wrong-token-wrong"]) {
          const refused = await hookFetch(host, path, { method, body, token });
          assertEquals(refused.status, 401, `${method} ${path} with token ${token}`);
          await refused.body?.cancel();
        }
        const foreign = await hookFetch(host, path, {
          method,
          body,
          headers: { Origin: "http://evil.example" },
        });
        assertEquals(foreign.status, 403, `${method} ${path} from a foreign origin`);
        await foreign.body?.cancel();
      }
      // The MCP clients' token (printed by mcp-config --http, kept in their configs) answers nothing here.
      const mcpToken = await hookFetch(host, "/api/approvals", { token: host.http.token! });
      assertEquals(mcpToken.status, 401);
      await mcpToken.body?.cancel();
      assertEquals(await host.hooks.status(), { status: "ok" });
      const mcp = await legacyClient(host.http, "endpoints");
      await mcp.callTool({ name: "read_file", arguments: { path: "a.txt" } });
      const session = await host.hooks.session();
      const [first] = session.sessions as Array<
        { client: string; recent: Array<{ tool: string }> }
      >;
      assertEquals(first?.client, "endpoints/1.0.0");
      assertEquals(first?.recent.map((call) => call.tool), ["read_file"]);
      const performance = await host.hooks.performance();
      assert((performance.tools as Record<string, unknown>).read_file, "read_file's statistics");
      assert((performance.status as Record<string, unknown>).landlock, "what is in effect");
      const project = JSON.stringify(await host.hooks.project());
      assertStringIncludes(project, root.path);
      assert(!project.includes("hunter2-not-for-tools"), "a secret in the config is redacted");
      assertEquals(await host.hooks.approvals(), []);
      const unknown = await hookFetch(host, "/api/approvals/nobody", {
        method: "POST",
        body: { decision: "approve" },
      });
      assertEquals(unknown.status, 404);
      await unknown.body?.cancel();
      await mcp.close();
    },
  );

  await t.step(
    "hook API: an ask answered gives 200 with the response, unanswered 504, an unknown id 404",
    async () => {
      const cursor = (await host.hooks.events()).cursor;
      const asked = host.hooks.ask({ question: "Deploy?" });
      const received = await host.hooks.waitForEvent("ask_received", { after: cursor });
      assertEquals(received.data.data, { question: "Deploy?" });
      assert(await host.hooks.respond(String(received.data.request_id), { answer: "yes" }));
      assertEquals(await asked, { response: { answer: "yes" } });
      const unanswered = await hookFetch(host, "/api/ask", { method: "POST", body: { q: 1 } });
      assertEquals(unanswered.status, 504);
      await unanswered.body?.cancel();
      assertEquals(await host.hooks.respond("no-such-request", "x"), false);
      // An ask that timed out cannot be answered late.
      const late = await host.hooks.waitForEvent("ask_received", {
        after: received.seq,
        match: (event) => (event.data.data as { q?: number }).q === 1,
      });
      assertEquals(await host.hooks.respond(String(late.data.request_id), "late"), false);
    },
  );
});

Deno.test("hook API: beside MCP over stdio, the Hook API holds a call for approval and logs the call", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  const config = `${outside.path}/toolhost.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({ hooks: { port: 0 }, approvals: [{ classes: ["write"] }] }),
  );
  await using host = await launchHost({ roots: [root.path], config });
  const stderr = await waitForStderr(host.session, /Hook API and dashboard at (http:\/\/\S+\/) /);
  const url = /Hook API and dashboard at (http:\/\/\S+\/) /.exec(stderr)![1]!;
  assertStringIncludes(stderr, "approvals: 1 rule(s)");
  const token = (await Deno.readTextFile(`${root.path}/.toolhost/hooks-token`)).trim();
  const hooks = new HookClient(url, { token });
  const waiting = host.call("create_directory", { path: "made" });
  const asked = await hooks.waitForEvent("approval_asked");
  assertEquals(asked.data.args, { path: "made" });
  await hooks.approve(String(asked.data.id));
  const result = await waiting;
  assert(!result.isError);
  assert((await Deno.stat(`${root.path}/made`)).isDirectory);
  const ended = await hooks.waitForEvent("call_ended", { after: asked.seq });
  assertEquals([ended.data.tool, ended.data.outcome, ended.data.approval], [
    "create_directory",
    "ok",
    "approved",
  ]);
});

/**
 * Run `toolhost dashboard` for a root: the real CLI's `main`, in this process as `mcp-config` is
 * run (`tests/_mcp.ts`), with this process's environment and working directory, as a child would
 * have them (a child prints the same at the cost of a Deno start per run).
 */
async function dashboard(root: string, ...args: string[]) {
  const { main } = await import("../../../host/cli/main.ts");
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["dashboard", "--root", root, ...args], {
    out: (line) => out.push(`${line}\n`),
    err: (line) => err.push(`${line}\n`),
  });
  return { code, out: out.join("").trim(), err: err.join("") };
}

// One host with the default Hook API config for these steps. The event readers' step reads every
// event from the start, so it runs first, before any other step's calls.
Deno.test("hook API: on a host with the default config", async (t) => {
  await using root = await tempDir();
  await Deno.mkdir(`${root.path}/events`);
  await Deno.writeTextFile(`${root.path}/events/a.txt`, "alpha\n");
  await using host = await launchWithHooks(root.path);

  await t.step(
    "hook API: two event readers each see every event, in order, with cursors of their own",
    async () => {
      const mcp = await legacyClient(host.http, "events");
      for (let i = 0; i < 5; i++) {
        await mcp.callTool({
          name: "get_file_slice",
          arguments: { path: "events/a.txt", start_line: 1, end_line: 1 },
        });
      }
      const readAll = async () => {
        const seen: HookEvent[] = [];
        let cursor = 0;
        for (;;) {
          const page = await host.hooks.events(cursor);
          if (page.events.length === 0) return seen;
          seen.push(...page.events);
          cursor = page.cursor;
        }
      };
      // Both read (interleaved), neither drains the other.
      const [one, two] = await Promise.all([readAll(), readAll()]);
      assertEquals(one.map((event) => event.seq), two.map((event) => event.seq));
      const calls = one.filter((event) =>
        event.type === "call_ended" && event.data.tool === "get_file_slice"
      );
      assertEquals(calls.length, 5);
      assertEquals(calls.map((event) => event.data.outcome), ["ok", "ok", "ok", "ok", "ok"]);
      // The sinks' and upstream servers' state, as the Hook API started.
      const status = one.find((event) => event.type === "status_changed");
      assertEquals((status?.data.efferent_copy as { state?: string }).state, "off");
      assertEquals(status?.data.upstreams, []);
      const started = one.filter((event) => event.type === "call_started");
      assertEquals(started[0]?.data.args, { path: "events/a.txt", start_line: 1, end_line: 1 });
      // A reader that waits gets the next event as it happens.
      const last = one.at(-1)!.seq;
      const waiting = host.hooks.events(last, 20);
      await mcp.callTool({ name: "read_file", arguments: { path: "events/a.txt" } });
      const page = await waiting;
      assertEquals(page.events[0]?.type, "call_started");
      assertEquals(page.events[0]?.seq, last + 1);
      const bad = await hookFetch(host, "/api/events?after=minus");
      assertEquals(bad.status, 400);
      await bad.body?.cancel();
      await mcp.close();
    },
  );

  await t.step(
    "hook API: the dashboard's files hold no data and load nothing from elsewhere",
    async () => {
      const page = await hookFetch(host, "/", { token: null });
      assertEquals(page.status, 200);
      const html = await page.text();
      assertMatch(
        page.headers.get("content-security-policy") ?? "",
        /default-src 'none'; script-src 'self'/,
      );
      for (const match of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
        // This server's files, or the empty icon (which keeps browsers from asking for /favicon.ico).
        assert(match[1]!.startsWith("/") || match[1] === "data:,", `${match[1]} is this server's`);
      }
      assert(!html.includes(host.token), "the page holds no token");
      const script = await hookFetch(host, "/dashboard.js", { token: null });
      assertEquals(script.status, 200);
      // Only the SVG namespace's name is a URL in it (a name, never fetched).
      const urls = (await script.text()).match(/https?:\/\/[^\s"'`]+/g) ?? [];
      assertEquals(urls, ["http://www.w3.org/2000/svg"], "the script reaches nothing elsewhere");
      const foreign = await hookFetch(host, "/", {
        token: null,
        headers: { Origin: "http://evil.example" },
      });
      assertEquals(foreign.status, 403);
      await foreign.body?.cancel();
    },
  );

  await t.step(
    "hook API: tools and the shell have no route to it, and cannot read its token",
    async () => {
      const mcp = await legacyClient(host.http, "reach");
      const read = await mcp.callTool({
        name: "read_file",
        arguments: { path: ".toolhost/hooks-token" },
      });
      assert(read.isError);
      const text = JSON.stringify(read.content);
      assert(!text.includes(host.token), "the token is not in the answer");
      const { port } = new URL(host.hooksUrl);
      const tools = await mcp.listTools();
      const shellListed = tools.tools.some((tool: { name: string }) => tool.name === "run_shell");
      if (!missing("run_shell (bwrap), to try the Hook API from a command", shellListed)) {
        const command =
          `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /status HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 || echo unreachable; cat .toolhost/hooks-token 2>&1 | head -c 200`;
        const shell = await mcp.callTool({ name: "run_shell", arguments: { command } });
        const out = JSON.stringify(shell.content);
        assertStringIncludes(out, "unreachable");
        assert(!out.includes(host.token), "the shell cannot read the token");
        assert(!out.includes('"status":"ok"'), "the shell cannot reach the Hook API");
      }
      await mcp.close();
    },
  );

  await t.step(
    "toolhost dashboard: prints the URL only where this host's Hook API answers, else says why and what works",
    async () => {
      // A root no host serves, for the cases without this host's Hook API.
      await using unserved = await tempDir();
      await using elsewhere = await tempDir();
      const off = await dashboard(unserved.path);
      assertEquals([off.code, off.out], [2, ""]);
      assertStringIncludes(off.err, "the Hook API is off");
      assertStringIncludes(off.err, '"toolhost mcp-config --hooks 8999"');
      assertStringIncludes(off.err, "your own config file, outside the roots");
      // A config inside the root asks in vain (it only tightens until trusted): the command says so.
      await Deno.writeTextFile(
        `${unserved.path}/toolhost.json`,
        JSON.stringify({ hooks: { port: 8999 } }),
      );
      const inside = await dashboard(unserved.path);
      assertEquals(inside.code, 2);
      assertStringIncludes(inside.err, 'ignored "hooks"');
      await Deno.remove(`${unserved.path}/toolhost.json`);
      // A port nothing listens on (just freed).
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const free = listener.addr.port;
      listener.close();
      const nothing = await dashboard(unserved.path, "--hooks", String(free));
      assertEquals([nothing.code, nothing.out], [1, ""]);
      assertStringIncludes(nothing.err, `nothing listens at http://127.0.0.1:${free}/ now`);
      assertStringIncludes(nothing.err, `"toolhost mcp-config --hooks ${free}"`);
      // Another program on the port: never taken for the Hook API (and never sent the token).
      const seen: string[] = [];
      const stranger = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (request) => {
          seen.push(request.headers.get("authorization") ?? "");
          return new Response("hello");
        },
      );
      const other = await dashboard(unserved.path, "--hooks", String(stranger.addr.port));
      await stranger.shutdown();
      assertEquals([other.code, other.out], [1, ""]);
      assertStringIncludes(other.err, "is not this host's Hook API");
      assertEquals(seen, [""]);
      // This host's Hook API: the URL, with its token.
      const port = new URL(host.hooksUrl).port;
      const on = await dashboard(root.path, "--hooks", port);
      assertEquals([on.code, on.out], [
        0,
        `${host.hooksUrl}#token=${encodeURIComponent(host.token)}`,
      ]);
      // Another root's state directory holds another token: said, not printed.
      const mismatch = await dashboard(elsewhere.path, "--hooks", port);
      assertEquals([mismatch.code, mismatch.out], [1, ""]);
      assertStringIncludes(mismatch.err, "another state directory");
    },
  );
});

Deno.test("hook API: a config file inside the roots cannot turn it on (a cloned repository's could)", async () => {
  await using root = await tempDir();
  await using host = await launchHost({ roots: [root.path], file: { hooks: { port: 0 } } });
  const stderr = await waitForStderr(host.session, /is not trusted.*ignored "hooks"/);
  assert(!stderr.includes("Hook API and dashboard at"), stderr);
});
