/**
 * Upstream tool names through the served host, started as `mcp-config`
 * prints it: an upstream whose tools' names break MCP's rule (a space, a
 * slash, too long once `<server>__` is put before them) is listed under
 * valid names that reach those tools; the start-up line,
 * `get_host_performance` and `toolhost doctor` show which name calls which;
 * a configured server name that cannot form valid names is a config error.
 */

import type { Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertMatch, assertRejects } from "../../_assert.ts";
import { cliRun, tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";
import { loadConfig } from "../../../host/config/mod.ts";
import { ICONS } from "../../../tools/icons.ts";
import { TOOL_NAME_PATTERN } from "../../../tools/tool_names.ts";
// The fixture's tools' own names.
import { NAMES as OWN } from "../../../fixtures/upstream/_names.ts";

const NAMES = new URL("../../../fixtures/upstream/names_server.ts", import.meta.url).pathname;

/**
 * Write the user's own toolhost.json (outside the roots: its servers start as listed) naming the
 * fixture as upstream "odd"; returns its path.
 */
async function oddConfig(dir: string): Promise<string> {
  const config = `${dir}/toolhost.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      upstream: { mcpServers: { odd: { command: Deno.execPath(), args: ["run", NAMES] } } },
    }),
  );
  return config;
}

/** Each of the upstream's listed names, with the own name calling it reaches. */
async function reached(session: StdioSession): Promise<Record<string, string>> {
  const tools: Tool[] = (await session.client.listTools()).tools;
  const odd = tools.filter((tool) => tool.name.startsWith("odd__"));
  if (odd.length === 0) throw new Error(`no upstream tools listed: ${session.stderr()}`);
  const map: Record<string, string> = {};
  for (const tool of odd) {
    assertEquals(tool.icons, [ICONS.upstream], tool.name);
    const result = await session.call(tool.name);
    assert(result.isError !== true, `${tool.name}: ${resultText(result)}`);
    map[tool.name] = resultText(result);
  }
  return map;
}

Deno.test("upstream names: names outside MCP's rule are listed under valid ones that reach the right tools, the same at every start", async () => {
  await using root = await tempDir();
  await using mine = await tempDir("toolhost-user-config-");
  const config = await oddConfig(mine.path);
  let first: Record<string, string>;
  {
    await using session = await connectStdio([root.path], { config });
    const tools: Tool[] = (await session.client.listTools()).tools;
    for (const tool of tools) assertMatch(tool.name, TOOL_NAME_PATTERN);
    first = await reached(session);
    assertMatch(
      session.stderr(),
      /upstream "odd" connected \(7 tools, 5 renamed to fit MCP's name rule/,
    );
  }
  assertEquals(Object.values(first).sort(), [...OWN].sort());
  assertEquals(first["odd__plain"], "plain");
  assertEquals(first["odd__dotted.name"], "dotted.name");
  const renamed = Object.keys(first).filter((name) =>
    !["odd__plain", "odd__dotted.name"].includes(name)
  );
  assertEquals(renamed.length, 5);
  for (const name of renamed) assertMatch(name, /^odd__[A-Za-z0-9_.-]*-[0-9a-f]{8}$/);
  await using session = await connectStdio([root.path], { config });
  assertEquals(
    await reached(session),
    first,
    "a second start lists the same names for the same tools",
  );
  const performance = await session.call("get_host_performance");
  const status = (performance.structuredContent as {
    status: { upstreams: Array<{ name: string; renamed?: Record<string, string> }> };
  }).status;
  const expected = Object.fromEntries(renamed.map((name) => [name, first[name]!]));
  assertEquals(status.upstreams.find((each) => each.name === "odd")?.renamed, expected);
});

Deno.test("upstream names: toolhost doctor shows a line for each renamed tool, with the tool it calls", async () => {
  await using root = await tempDir();
  await using mine = await tempDir("toolhost-user-config-");
  const config = await oddConfig(mine.path);
  const doctor = await new Deno.Command(Deno.execPath(), {
    args: cliRun(["doctor", "--root", root.path, "--config", config, "--json"]),
    cwd: "/",
    stdin: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(doctor.stdout)) as {
    probes: Array<{ name: string; ok: boolean; detail: string }>;
  };
  const lines = report.probes.filter((probe) => probe.name === 'upstream "odd": tool renamed');
  assertEquals(lines.length, 5, JSON.stringify(report.probes.map((probe) => probe.name)));
  for (const line of lines) assert(line.ok, line.detail);
  const shown = lines.map((line) => {
    const match = /^listed as "(odd__[^"]+)", which calls its tool (".*")$/.exec(line.detail);
    assert(match, line.detail);
    return JSON.parse(match[2]!) as string;
  });
  assertEquals(shown.sort(), OWN.filter((own) => !["plain", "dotted.name"].includes(own)).sort());
  const answers = report.probes.find((probe) => probe.name === 'upstream "odd": answers');
  assertEquals(answers?.detail, "connected (7 tools)");
});

Deno.test("upstream names: a server name that cannot form valid tool names is a config error", async () => {
  await using root = await tempDir();
  for (const [name, why] of [["my server", /may hold only letters/], ["a__b", /"__"/]] as const) {
    await Deno.writeTextFile(
      `${root.path}/toolhost.json`,
      JSON.stringify({ upstream: { mcpServers: { [name]: { command: "true" } } } }),
    );
    const error = await assertRejects(() => loadConfig({ roots: [root.path] }), TypeError);
    assertMatch(error.message, new RegExp(`Cannot use upstream server name "${name}"`));
    assertMatch(error.message, why);
  }
});
