/**
 * A real MCP client over stdio, started with the command `toolhost
 * mcp-config` prints: the black-box view of the host.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ENTRY = new URL("../mod.ts", import.meta.url);

/** A connected client; `await using` closes it and the server. */
export interface StdioSession extends AsyncDisposable {
  /** The SDK client. */
  readonly client: Client;
  /** What the server wrote to stderr. */
  stderr(): string;
}

/**
 * The `.mcp.json` entry for some roots, from the real CLI.
 *
 * @param roots The roots.
 * @returns The command and arguments.
 */
export async function mcpConfigFor(
  roots: readonly string[],
): Promise<{ command: string; args: string[] }> {
  const args = [
    "run",
    "-A",
    ENTRY.pathname,
    "mcp-config",
    ...roots.flatMap((root) => ["--root", root]),
  ];
  const output = await new Deno.Command(Deno.execPath(), { args, cwd: "/", stderr: "inherit" })
    .output();
  if (!output.success) throw new Error("toolhost mcp-config failed");
  return JSON.parse(new TextDecoder().decode(output.stdout)).mcpServers.toolhost;
}

/**
 * Start the sandboxed server exactly as an MCP client configured with
 * `mcp-config` would (from `/`, with a minimal environment), and connect.
 *
 * @param roots The roots.
 * @returns The session.
 */
export async function connectStdio(roots: readonly string[]): Promise<StdioSession> {
  const { command, args } = await mcpConfigFor(roots);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: "/",
    stderr: "pipe",
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "toolhost-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}
