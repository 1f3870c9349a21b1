/**
 * The gateway's protocol errors, as a client sees them: the message is said
 * once (`errorText` puts `MCP error <code>: ` before it, as the v1 client's `McpError` did).
 */

import { assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, errorText } from "../../_mcp.ts";

/** What a rejected request says, as the client's error has it. */
async function rejection(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    return errorText(error);
  }
  throw new Error("the request did not fail");
}

Deno.test("server: an unknown tool's and an unknown resource's errors read once", async () => {
  await using root = await tempDir();
  await using session = await connectStdio([root.path]);
  const tool = await rejection(session.call("no_such_tool", {}));
  assertEquals(tool, `MCP error -32602: Unknown tool "no_such_tool"`);
  const resource = await rejection(
    session.client.readResource({ uri: "toolhost://anchors/nothing" }),
  );
  assertMatch(resource, /^MCP error -32602: Unknown resource "toolhost:\/\/anchors\/nothing"$/);
  assertEquals(resource.split("MCP error").length, 2, resource);
});
