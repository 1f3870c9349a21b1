/**
 * Directives end to end for a local tool: todo_write's ContextAnchor reaches
 * the anchor resource, its update notification, `_meta` on the wire, and a
 * restarted host.
 */

import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { assert, assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { createHost } from "../../../host/host.ts";
import { createGateway } from "../../../host/transports/server.ts";

Deno.test("anchors: a local tool's directive reaches the resource, its update notification and a restarted host", async () => {
  await using root = await tempDir();
  const options = { roots: [root.path], ripgrep: "off", logger: { log: () => {} } };
  {
    await using host = await createHost(options);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createGateway(host).connect(serverSide);
    const client = new Client({ name: "anchors-test", version: "1" });
    await client.connect(clientSide);
    const updates: string[] = [];
    client.setNotificationHandler(
      "notifications/resources/updated",
      (note: { params: { uri: string } }) => {
        updates.push(note.params.uri);
      },
    );
    const first = await client.callTool({
      name: "todo_write",
      arguments: { todos: [{ content: "write tests", status: "in_progress" }] },
    });
    const directives =
      (first._meta as Record<string, Array<{ kind: string }>>)["toolhost/directives"]!;
    assertEquals(directives.map((each) => each.kind), ["ContextAnchor", "TodoStateChanged"]);
    await client.subscribeResource({ uri: "toolhost://anchors/todo_state" });
    await client.callTool({
      name: "todo_write",
      arguments: {
        todos: [{ content: "write tests", status: "completed" }, {
          content: "ship",
          status: "pending",
        }],
      },
    });
    // Wait for the notification (a state, not a time: the limit is only for a hang).
    for (let i = 0; i < 6_000 && updates.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(updates, ["toolhost://anchors/todo_state"]);
    const read = await client.readResource({ uri: "toolhost://anchors/todo_state" });
    assertEquals((read.contents[0] as { text: string }).text, "[x] 1. write tests\n[ ] 2. ship");
    await client.close();
  }
  await using again = await createHost(options);
  assertEquals(again.anchors.get("todo_state")?.content, "[x] 1. write tests\n[ ] 2. ship");
  const todos = await again.call("todo_read", {});
  assertEquals((todos.structuredContent as { todos: unknown[] }).todos.length, 2);
  const listed = again.list().map((tool) => tool.name);
  assert(listed.includes("todo_write") && listed.includes("read_interactions"));
});
