/**
 * Layer 3 through the whole sandboxed host: upstream servers configured in
 * toolhost.json, started by the scoped process that `mcp-config` describes,
 * their tools served beside the local ones, their directives parsed into
 * context anchors that clients read and subscribe to as resources.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { assert, assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio } from "../../_mcp.ts";

const ECHO = new URL("../../../fixtures/upstream/echo_server.ts", import.meta.url).pathname;
const SERVER_FILESYSTEM = new URL(
  "../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.url,
).pathname;

Deno.test("layer 3: upstream tools, directives and anchors through the sandboxed host", async (t) => {
  await using root = await tempDir();
  // The user's own config, outside the root: its servers run as listed (a config file inside a
  // root would start none until trusted).
  await using mine = await tempDir();
  const config = `${mine.path}/toolhost.json`;
  await Deno.writeTextFile(`${root.path}/hello.txt`, "hello\n");
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      upstream: {
        mcpServers: {
          echo: { command: Deno.execPath(), args: ["run", ECHO], denyTools: ["crash"] },
          fs: {
            command: Deno.execPath(),
            args: ["run", "-A", SERVER_FILESYSTEM, root.path],
            timeoutMs: 20_000,
          },
        },
      },
    }),
  );
  await using session = await connectStdio([root.path], { config });
  const { client } = session;
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  await t.step("local and upstream tools are listed together; deny lists hold", async () => {
    const tools: Tool[] = (await client.listTools()).tools;
    const names = tools.map((tool) => tool.name);
    if (!tools.some((tool) => tool.name === "echo__echo")) throw new Error(session.stderr());
    for (const name of ["read_file", "echo__echo", "echo__anchor", "fs__list_directory"]) {
      assert(names.includes(name), name);
    }
    assert(!names.includes("echo__crash"), "denied tool hidden");
    const echo = tools.find((tool) => tool.name === "echo__echo")!;
    assertEquals(echo.annotations?.readOnlyHint, true);
    assertEquals(echo.outputSchema?.type, "object");
  });

  await t.step("upstream calls answer through the host", async () => {
    const echoed = await call("echo__echo", { text: "through" });
    assertEquals(echoed.structuredContent, { text: "through" });
    const listing = await call("fs__list_directory", { path: root.path });
    assertStringIncludes((listing.content[0] as { text: string }).text, "hello.txt");
  });

  await t.step(
    "the filesystem server's root argument is its data: the root stays writable",
    async () => {
      const edited = await call("edit_file", {
        path: "hello.txt",
        old_string: "hello",
        new_string: "hello, edited",
      });
      assert(!edited.isError, JSON.stringify(edited.content));
      assertEquals(await Deno.readTextFile(`${root.path}/hello.txt`), "hello, edited\n");
    },
  );

  await t.step(
    "an upstream's directive becomes an anchor resource, with an update notification",
    async () => {
      const updates: string[] = [];
      client.setNotificationHandler(
        "notifications/resources/updated",
        (note: { params: { uri: string } }) => {
          updates.push(note.params.uri);
        },
      );
      await call("echo__anchor", { key: "plan", content: "first" });
      const { resources } = await client.listResources();
      assert(
        resources.some((resource: { uri: string }) => resource.uri === "toolhost://anchors/plan"),
      );
      await client.subscribeResource({ uri: "toolhost://anchors/plan" });
      const result = await call("echo__anchor", { key: "plan", content: "second" });
      assertEquals(
        (result._meta as Record<string, unknown[]>)["toolhost/directives"]!.length,
        2,
        "passed through as sent",
      );
      const read = await client.readResource({ uri: "toolhost://anchors/plan" });
      assertEquals((read.contents[0] as { text: string }).text, "second");
      // Wait for the notification (a state, not a time: the limit is only for a hang).
      for (let i = 0; i < 3_000 && updates.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assertEquals(updates, ["toolhost://anchors/plan"]);
      assertStringIncludes(session.stderr(), "FutureThing");
    },
  );

  await t.step("progress from the upstream reaches the client through the host", async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      { name: "echo__progress", arguments: { steps: 3 } },
      {
        onprogress: (progress: { progress: number }) => seen.push(progress.progress),
      },
    );
    assertEquals((result.content as Array<{ text: string }>)[0]!.text, "done 3");
    assertEquals(seen, [1, 2, 3]);
  });

  await t.step("upstream calls are in the interaction log", async () => {
    const logged = await call("read_interactions", { tool: "echo__echo", limit: 5 });
    const rows =
      (logged.structuredContent as { interactions: Array<{ tool: string; outcome: string }> })
        .interactions;
    assertEquals(rows.map((row) => [row.tool, row.outcome]), [["echo__echo", "ok"]]);
  });
});
