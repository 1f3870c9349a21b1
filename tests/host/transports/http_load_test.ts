/**
 * Many clients at once over Streamable HTTP, against the host as a user
 * starts it: 50 clients (half 2025-11-25 sessions, half 2026-07-28
 * stateless requests) make 200 calls each, all at once. Every call must
 * succeed with its own file's content, and the interaction log must hold
 * exactly one line per call.
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { assertEquals } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { type HttpHost, launchHttp } from "../../_mcp.ts";

const CLIENTS = 50;
const CALLS = 200;

/** Something that calls tools: either SDK's client. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function connect(host: HttpHost, i: number): Promise<Caller> {
  const url = new URL(host.url);
  const requestInit = { headers: host.headers };
  if (i % 2 === 0) {
    const client = new Client({ name: `load-${i}`, version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    return client as unknown as Caller;
  }
  const client = new Client({ name: `load-${i}`, version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return client as unknown as Caller;
}

/** One client's calls, in order; the number that failed or answered another file. */
async function run(caller: Caller, i: number): Promise<string[]> {
  const wrong: string[] = [];
  for (let n = 0; n < CALLS; n++) {
    try {
      const result = await caller.callTool({
        name: "read_file",
        arguments: { path: `f${i}.txt` },
      }) as {
        isError?: boolean;
        content: Array<{ text?: string }>;
      };
      const text = result.content[0]?.text ?? "";
      if (result.isError || text !== `client ${i}\n`) wrong.push(`client ${i} call ${n}: ${text}`);
    } catch (error) {
      wrong.push(`client ${i} call ${n}: ${error}`);
    }
  }
  return wrong;
}

async function logLineCount(root: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir(`${root}/.toolhost/interactions`)) {
    if (!entry.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(`${root}/.toolhost/interactions/${entry.name}`);
    count += text.split("\n").filter((line) => line.trim() !== "").length;
  }
  return count;
}

Deno.test({
  name:
    "http load: 50 clients x 200 calls at once, 0 errors, exactly 10,000 lines in the interaction log",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using root = await tempDir();
    for (let i = 0; i < CLIENTS; i++) {
      await Deno.writeTextFile(`${root.path}/f${i}.txt`, `client ${i}\n`);
    }
    await using host = await launchHttp([root.path]);
    const callers = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => connect(host, i)));
    const wrong = (await Promise.all(callers.map((caller, i) => run(caller, i)))).flat();
    await Promise.all(callers.map((caller) => caller.close()));
    assertEquals(wrong.slice(0, 5), [], `${wrong.length} calls went wrong`);
    // The log is flushed when the host stops.
    assertEquals((await host.stop()).code, 0);
    assertEquals(await logLineCount(root.path), CLIENTS * CALLS);
  },
});
