/**
 * A host with its Hook API on, started the way a user starts it (the
 * command `mcp-config` prints, over HTTP on a port the system picks, its
 * config file outside the root), and a Hook API client for it.
 *
 * @module
 */

import { HookClient } from "../../../mod.ts";
import { type HttpHost, launchHttp } from "../../_mcp.ts";

/** A running host with its Hook API. */
export interface HooksHost extends AsyncDisposable {
  /** The MCP side. */
  readonly http: HttpHost;
  /** The Hook API's base URL (`http://127.0.0.1:<port>/`). */
  readonly hooksUrl: string;
  /** The Hook API's token (`.toolhost/hooks-token`, not the MCP clients'). */
  readonly token: string;
  /** A client of the Hook API. */
  readonly hooks: HookClient;
}

/**
 * Start a host whose config turns the Hook API on (port 0) with these settings.
 *
 * @param root The root (its toolhost.json is written).
 * @param file More of toolhost.json (approvals, hooks settings).
 * @returns The host, its Hook API's URL, token and client.
 */
export async function launchWithHooks(
  root: string,
  file: Record<string, unknown> = {},
): Promise<HooksHost> {
  // The Hook API opens a port: only a config file outside the roots may turn it on.
  const outside = await Deno.makeTempDir({ prefix: "toolhost-hooks-config-" });
  const config = `${outside}/toolhost.json`;
  const hooksSection = { port: 0, ...(file.hooks as Record<string, unknown> | undefined) };
  await Deno.writeTextFile(config, JSON.stringify({ ...file, hooks: hooksSection }));
  const http = await launchHttp([root], { config });
  const match = /Hook API and dashboard at (http:\/\/\S+\/) /.exec(http.stderr());
  if (!match) {
    await http.stop();
    throw new Error(`No Hook API line in:\n${http.stderr()}`);
  }
  const token = (await Deno.readTextFile(`${root}/.toolhost/hooks-token`)).trim();
  const hooks = new HookClient(match[1], { token });
  return {
    http,
    hooksUrl: match[1]!,
    token,
    hooks,
    [Symbol.asyncDispose]: async () => {
      await http.stop();
      await Deno.remove(outside, { recursive: true });
    },
  };
}

/**
 * A request to the Hook API.
 *
 * @param host The host.
 * @param path The path.
 * @param init Method, body, headers (the token is added unless `token` says otherwise).
 * @returns The response.
 */
export function hookFetch(
  host: HooksHost,
  path: string,
  init: {
    method?: string;
    body?: unknown;
    token?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const token = init.token === undefined ? host.token : init.token;
  return fetch(new URL(path, host.hooksUrl), {
    method: init.method ?? "GET",
    headers: {
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      "Content-Type": "application/json",
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}
