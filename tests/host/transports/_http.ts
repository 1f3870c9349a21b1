/**
 * What the HTTP tests share: the SDK's two clients connected to a host
 * started with `launchHttp`, raw requests, the interaction log.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type TempDir, tempDir } from "../../_helpers.ts";
import type { HttpHost } from "../../_mcp.ts";

/** A 2025-11-25 client (the v2 SDK's, with no version negotiation), connected. */
export async function legacyClient(host: HttpHost, name = "legacy"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: host.headers },
    }),
  );
  return client;
}

/** A 2026-07-28 client (the v2 SDK's, pinned), connected. */
export async function modernClient(host: HttpHost, name = "modern"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: host.headers },
    }),
  );
  return client;
}

/** A raw JSON-RPC POST. */
export function post(
  host: HttpHost,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(host.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A raw `initialize` at a protocol revision. */
export const INITIALIZE = (version: string): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** The interaction log's lines. */
export async function logLines(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = `${root}/.toolhost/interactions`;
  const lines: Array<Record<string, unknown>> = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(`${dir}/${entry.name}`);
    for (const line of text.split("\n")) if (line) lines.push(JSON.parse(line));
  }
  return lines;
}

/** A temporary root with these files. */
export async function projectWith(files: Record<string, string>): Promise<TempDir> {
  const root = await tempDir();
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${root.path}/${name}`, text);
  }
  return root;
}
