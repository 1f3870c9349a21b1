/**
 * Both protocol revisions over both transports, as users launch them: the
 * v2 SDK's client pinned to 2025-11-25 (an `initialize` that offers only
 * that revision) and to 2026-07-28 (`server/discover`, then the revision in
 * every request's `_meta`), over stdio (the command `mcp-config` prints) and
 * over Streamable HTTP (`toolhost start --http`). Each lists the tools and
 * reads a file the test wrote.
 */

import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { assert, assertEquals } from "../../_assert.ts";
import { clientEnv, launchHttp, mcpConfigFor, resultText } from "../../_mcp.ts";
import { waitUntil } from "../../security/_shell.ts";
import { logLines, projectWith } from "./_http.ts";

const REVISIONS = ["2025-11-25", "2026-07-28"] as const;

/** A revision a test pins its client to. */
type Revision = typeof REVISIONS[number];

const TEXT = "first line\nsecond line, é\n";

/** The v2 client pinned to one revision: no other is offered or accepted. */
function pinnedClient(revision: Revision): Client {
  const info = { name: `pinned-${revision}`, version: "1.0.0" };
  return revision === "2026-07-28"
    ? new Client(info, { versionNegotiation: { mode: { pin: revision } } })
    : new Client(info, { supportedProtocolVersions: [revision] });
}

/** List the tools and read a file over a connected client; its revision must be the pinned one. */
async function listAndRead(transport: Transport, revision: Revision, root: string): Promise<void> {
  const client = pinnedClient(revision);
  await client.connect(transport);
  try {
    assertEquals(client.getNegotiatedProtocolVersion(), revision);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert(tools.includes("read_file") && tools.includes("edit_file"), tools.join(", "));
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    assertEquals(resultText(read as CallToolResult), TEXT);
  } finally {
    await client.close();
  }
  // The call is the pinned client's in the interaction log, whichever revision carried it (a
  // host still serving writes the log a moment after the call).
  await waitUntil(async () => {
    const lines = await logLines(root).catch(() => []);
    return lines.some((line) =>
      line.tool === "read_file" && line.client === `pinned-${revision}/1.0.0`
    );
  }, `the read logged as pinned-${revision}'s`);
}

for (const revision of REVISIONS) {
  Deno.test(`stdio: a v2 client pinned to ${revision} lists the tools and reads a file`, async () => {
    await using root = await projectWith({ "a.txt": TEXT });
    const { command, args } = await mcpConfigFor([root.path]);
    const transport = new StdioClientTransport({
      command,
      args,
      cwd: "/",
      env: clientEnv(),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on(
      "data",
      (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)),
    );
    try {
      await listAndRead(transport, revision, root.path);
    } catch (error) {
      throw new Error(`${error}\nserver stderr:\n${stderr}`, { cause: error });
    }
  });

  Deno.test(`http: a v2 client pinned to ${revision} lists the tools and reads a file`, async () => {
    await using root = await projectWith({ "a.txt": TEXT });
    await using host = await launchHttp([root.path]);
    const transport = new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: host.headers },
    });
    await listAndRead(transport, revision, root.path);
  });
}
