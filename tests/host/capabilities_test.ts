/**
 * No silent fallbacks, in the launch users run: ripgrep serves searches when
 * it is installed; a ripgrep that cannot run is said (start-up line,
 * `get_host_performance`, `doctor`) while the JS walker answers; every local
 * tool says it stays inside (`openWorldHint: false`) and every tool that
 * writes says `destructiveHint`.
 */

import type { Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { canRun, cliRun, tempDir } from "../_helpers.ts";
import { connectStdio, resultText, waitForStderr } from "../_mcp.ts";

Deno.test("capabilities: an rg that cannot run is said at start, by get_host_performance and by doctor, and the walker answers", async () => {
  await using root = await tempDir();
  await using elsewhere = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.py`, "def needle():\n    pass\n");
  const fake = `${elsewhere.path}/rg`;
  await Deno.writeTextFile(fake, "not a program\n");
  await Deno.chmod(fake, 0o644);
  await using session = await connectStdio([root.path], { ripgrep: fake });
  const grep = await session.call("grep", { pattern: "needle" });
  assertEquals(resultText(grep), "a.py:1: def needle():");
  assertEquals(grep.structuredContent?.engine, "walker");
  const line = session.stderr();
  assertMatch(line, new RegExp(`ripgrep not in use: cannot run "${fake}": .*Permission denied`));
  assertMatch(line, /searches use the JS walker/);
  const performance = await session.call("get_host_performance");
  assertMatch(resultText(performance), /ripgrep not in use: cannot run .*Permission denied/);

  const doctor = await new Deno.Command(Deno.execPath(), {
    args: cliRun(["doctor", "--root", root.path, `--ripgrep=${fake}`, "--json"]),
    cwd: "/",
    stdin: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(doctor.stdout)) as {
    ok: boolean;
    probes: Array<{ name: string; ok: boolean; detail: string }>;
  };
  const probe = report.probes.find((each) => each.name.startsWith("ripgrep"))!;
  assertFalse(probe.ok, "a ripgrep the user named that cannot run fails the doctor");
  assertMatch(
    probe.detail,
    /not in use: cannot run .*Permission denied.*; searches use the JS walker/,
  );
  const served = report.probes.find((each) => each.name.startsWith("served process"))!;
  assert(served.ok, `the served process agrees: ${served.detail}`);
  assertEquals(doctor.code, 1);
});

Deno.test("capabilities: an upstream server or a sink peer that cannot start is said at start, by get_host_performance and by doctor", async () => {
  await using root = await tempDir();
  await using elsewhere = await tempDir();
  const missing = `${elsewhere.path}/no-such-server`;
  await Deno.writeTextFile(
    `${elsewhere.path}/toolhost.json`,
    JSON.stringify({
      upstream: { mcpServers: { gone: { command: missing } } },
      sinks: { mcpJson: "mcp.json" },
    }),
  );
  await Deno.writeTextFile(
    `${elsewhere.path}/mcp.json`,
    JSON.stringify({ mcpServers: { ghost: { command: `${missing}-sink` } } }),
  );
  const config = `${elsewhere.path}/toolhost.json`;
  const env = { EFFERENT_COPY_ENABLE: "1" };
  await using session = await connectStdio([root.path], { config, env });
  assertMatch(session.stderr(), /upstream "gone" not connected: .*; retrying in the background/);
  const said = await waitForStderr(session, /efferent copy: 0 sinks/);
  assertMatch(said, /not sinks: "ghost" \(/);
  const text = resultText(await session.call("get_host_performance"));
  assertMatch(text, /upstream "gone" not connected: /);
  assertMatch(text, /not sinks: "ghost" \(/);

  const doctor = await new Deno.Command(Deno.execPath(), {
    args: cliRun(["doctor", "--root", root.path, "--config", config, "--json"]),
    cwd: "/",
    env,
    stdin: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(doctor.stdout)) as {
    probes: Array<{ name: string; ok: boolean; detail: string }>;
  };
  const probe = (prefix: string) => report.probes.find((each) => each.name.startsWith(prefix))!;
  assertFalse(probe('upstream "gone"').ok);
  assertMatch(probe('upstream "gone"').detail, /^not connected: /);
  assertFalse(probe('efferent copy: sink "ghost"').ok);
  assertMatch(probe('efferent copy: sink "ghost"').detail, /^not a sink: /);
  assertEquals(doctor.code, 1);
});

/**
 * One host started the way users start it (no launch option) serves the tests below. The root
 * holds a file of each language, so every family is listed from the start; the Python file holds
 * the definition the ripgrep step searches for.
 */
Deno.test("capabilities: the launch users run, with a file of each language", async (t) => {
  await using root = await tempDir();
  // A file of each language, so that every family is listed.
  for (const name of ["b.c", "c.ts"]) await Deno.writeTextFile(`${root.path}/${name}`, "");
  await Deno.writeTextFile(`${root.path}/a.py`, "def needle():\n    pass\n");
  await using session = await connectStdio([root.path]);

  // First, while nothing but the start has happened in the root.
  await t.step({
    name: "capabilities: with ripgrep installed, the launch users run searches with it, confined",
    ignore: !canRun("rg"),
    async fn() {
      const grep = await session.call("grep", { pattern: "needle" });
      assertEquals(resultText(grep), "a.py:1: def needle():");
      assertEquals(grep.structuredContent?.engine, "ripgrep");
      const files = await session.call("search_files", { pattern: "*.py" });
      assertEquals(files.structuredContent?.engine, "ripgrep");
      assertMatch(session.stderr(), /ripgrep \S+ in use \(\/\S*rg\)/);
      assertMatch(session.stderr(), /tool workers confined by Landlock|Landlock is not active/);
      const status = (await session.call("get_host_performance")).structuredContent?.status as {
        ripgrep: { active: boolean };
      };
      assertEquals(status.ripgrep.active, true);
    },
  });

  await t.step(
    "capabilities: every local tool says openWorldHint false (the web tools true); every tool that writes says destructiveHint",
    async () => {
      const tools: Tool[] = (await session.client.listTools()).tools;
      assert(tools.length > 40, `${tools.length} tools`);
      const web = ["fetch_url", "web_search"];
      for (const tool of tools) {
        assertEquals(tool.annotations?.openWorldHint, web.includes(tool.name), tool.name);
        if (tool.annotations?.readOnlyHint !== true) {
          assertEquals(typeof tool.annotations?.destructiveHint, "boolean", tool.name);
        }
      }
      const writers = tools.filter((tool) => tool.annotations?.destructiveHint === true);
      for (const name of ["write_file", "edit_file", "move_file", "py_update_definition"]) {
        assert(writers.some((tool) => tool.name === name), name);
      }
    },
  );

  await t.step(
    "capabilities: after todo_write, bootstrap_body_state shows every open item's text",
    async () => {
      await session.call("todo_write", {
        todos: [
          { content: "write the parser", status: "completed" },
          { content: "test the parser on real code", status: "in_progress" },
          { content: "document the parser", status: "pending" },
        ],
      });
      const state = await session.call("bootstrap_body_state");
      assertMatch(
        resultText(state),
        /open todos: 2\n\[>\] 2\. test the parser on real code\n\[ \] 3\. document the parser/,
      );
      assertFalse(resultText(state).includes("write the parser"), "completed items are not open");
    },
  );
});
