/**
 * What the client-rights tests share: `toolhost token …` run as a user runs
 * it (`bin/toolhost`, the user's config directory in `XDG_CONFIG_HOME`), and
 * the SDK client connected with a client's token.
 *
 * @module
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fileURLToPath as fromFileUrl } from "node:url";
import { clientEnv, type HttpHost } from "../../_mcp.ts";

const TOOLHOST = fromFileUrl(new URL("../../../bin/toolhost", import.meta.url));

/** What a `toolhost token` run printed. */
export interface TokenRun {
  /** Its exit code. */
  code: number;
  /** Its stdout. */
  out: string;
  /** Its stderr. */
  err: string;
}

/**
 * Run `toolhost token ARGS… --root ROOT…` with the user's config in `config`.
 *
 * @param config The user's config directory (`XDG_CONFIG_HOME`).
 * @param roots The server's roots.
 * @param args The words after `token`, and options.
 * @returns What it printed.
 */
export async function token(
  config: string,
  roots: readonly string[],
  args: readonly string[],
): Promise<TokenRun> {
  const output = await new Deno.Command(TOOLHOST, {
    args: ["token", ...args, ...roots.flatMap((root) => ["--root", root])],
    env: clientEnv({ XDG_CONFIG_HOME: config }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: text(output.stdout), err: text(output.stderr) };
}

/**
 * Mint a client's token for a running server: the entry `token add` prints must name its URL.
 *
 * @param config The user's config directory.
 * @param host The server.
 * @param roots Its roots.
 * @param name The client's name.
 * @param rights The rights' options.
 * @returns The token.
 */
export async function mint(
  config: string,
  host: HttpHost,
  roots: readonly string[],
  name: string,
  rights: readonly string[] = [],
): Promise<string> {
  const { host: at } = new URL(host.url);
  const run = await token(config, roots, ["add", name, `--http=${at}`, ...rights]);
  if (run.code !== 0) throw new Error(`token add ${name} failed: ${run.err}`);
  const entry = JSON.parse(run.out).mcpServers.toolhost;
  if (entry.url !== host.url) throw new Error(`token add printed ${entry.url}, not ${host.url}`);
  return /^Bearer (\S+)$/.exec(entry.headers.Authorization)![1]!;
}

/**
 * A 2025-11-25 client connected with a token.
 *
 * @param host The server.
 * @param bearer The token.
 * @param name The client's own name (its clientInfo).
 * @returns The connected client.
 */
export async function clientWith(host: HttpHost, bearer: string, name: string): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}
