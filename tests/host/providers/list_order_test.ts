/**
 * The order of `tools/list`, which never depends on timing: the families'
 * tools in `tools/families.ts` order (each family's in its list's order),
 * then the upstream servers' by server name, each server's tools by listed
 * name, whatever order the server replied in. Each local tool carries its
 * family's icon.
 */

import { Client, type Tool } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { assert, assertEquals, assertNotEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio } from "../../_mcp.ts";
import { UpstreamProvider } from "../../../host/providers/upstream.ts";
import { FAMILIES } from "../../../tools/families.ts";
import { HOST_TOOL_FAMILIES, HOST_TOOLS } from "../../../tools/host_tools.ts";
import { TOOL_FAMILIES, TOOLS } from "../../../tools/mod.ts";

const NAMES = new URL("../../../fixtures/upstream/names_server.ts", import.meta.url).pathname;

/** The names the fixture lists, in the order it replies, when started with `order`. */
async function replyOrder(order: string): Promise<string[]> {
  const client = new Client({ name: "direct", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: Deno.execPath(), args: ["run", NAMES, order] }),
  );
  try {
    const tools: Tool[] = (await client.listTools()).tools;
    return tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** Start the served host on the project with two upstreams replying in the given orders. */
async function listed(root: string, orders: { zeta: string; alpha: string }): Promise<Tool[]> {
  const server = (order: string) => ({ command: Deno.execPath(), args: ["run", NAMES, order] });
  // The user's own config, outside the root (one inside would start no server until trusted).
  await using mine = await tempDir("toolhost-user-config-");
  const config = `${mine.path}/toolhost.json`;
  await Deno.writeTextFile(
    config,
    // zeta first: the config's order is not the list's.
    JSON.stringify({
      upstream: { mcpServers: { zeta: server(orders.zeta), alpha: server(orders.alpha) } },
    }),
  );
  await using session = await connectStdio([root], { config });
  const tools: Tool[] = (await session.client.listTools()).tools;
  if (!tools.some((tool) => tool.name.startsWith("zeta__"))) throw new Error(session.stderr());
  if (!tools.some((tool) => tool.name.startsWith("alpha__"))) throw new Error(session.stderr());
  return tools;
}

/** Code-unit order. */
function sorted(names: readonly string[]): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Each family's tools in its list's order. */
function declared(): Map<string, string[]> {
  const families: Record<string, string> = { ...TOOL_FAMILIES, ...HOST_TOOL_FAMILIES };
  const byFamily = new Map(FAMILIES.map((family) => [family.name, [] as string[]]));
  for (const tool of [...TOOLS, ...HOST_TOOLS]) byFamily.get(families[tool.name]!)!.push(tool.name);
  return byFamily;
}

Deno.test("list order: two starts of one project list the same tools in the same order, whatever order the upstreams reply in", async () => {
  const [one, two] = [await replyOrder("seed:1"), await replyOrder("seed:2")];
  assertNotEquals(one, two, "the fixture replies in another order with another seed");
  assertNotEquals(await replyOrder("reverse"), await replyOrder("forward"));
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/app.py`, "def main():\n    return 1\n");
  await Deno.writeTextFile(`${root.path}/index.ts`, "export const one = 1;\n");
  const first = await listed(root.path, { zeta: "seed:1", alpha: "forward" });
  const second = await listed(root.path, { zeta: "seed:2", alpha: "reverse" });
  const names = first.map((tool) => tool.name);
  assertEquals(second.map((tool) => tool.name), names);

  const families: Record<string, string> = { ...TOOL_FAMILIES, ...HOST_TOOL_FAMILIES };
  const local = names.filter((name) => families[name] !== undefined);
  const upstream = names.slice(local.length);
  assertEquals(names.slice(0, local.length), local, "local tools come first");
  const byFamily = declared();
  const expected = FAMILIES.flatMap((family) =>
    byFamily.get(family.name)!.filter((name) => local.includes(name))
  );
  assertEquals(local, expected, "families in tools/families.ts order, tools in their list's");
  assert(local.includes("py_get_definition") && local.includes("read_file"), local.join(" "));
  const alpha = upstream.filter((name) => name.startsWith("alpha__"));
  assertEquals(upstream, [...sorted(alpha), ...sorted(upstream.slice(alpha.length))]);
  assertEquals(alpha.length, 7);

  for (const tool of first.filter((each) => families[each.name] !== undefined)) {
    const family = FAMILIES.find((each) => each.name === families[tool.name])!;
    assertEquals(tool.icons, [family.icon], tool.name);
  }
});

Deno.test("list order: an upstream provider lists the same names in the same order whatever order its server replies in", async () => {
  const lists: string[][] = [];
  for (const order of ["forward", "reverse", "seed:3"]) {
    const upstream = await UpstreamProvider.connect({
      name: "names",
      spec: { command: Deno.execPath(), args: ["run", NAMES, order] },
      cwd: Deno.cwd(),
      logger: { log: () => {} },
    });
    try {
      lists.push(upstream.list().map((tool) => tool.name));
    } finally {
      await upstream.close();
    }
  }
  assertEquals(lists[0]!.length, 7);
  assertEquals(lists[0], sorted(lists[0]!));
  assertEquals(lists[1], lists[0]);
  assertEquals(lists[2], lists[0]);
});
