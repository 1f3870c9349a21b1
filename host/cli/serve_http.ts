/**
 * Serving over Streamable HTTP (`toolhost start --http [HOST:]PORT`): the
 * token, the start-up line and its warnings, and SIGTERM's drain.
 *
 * @module
 */

import { printable } from "../../security/printable.ts";
import { type HostConfig, isLoopback } from "../config/mod.ts";
import { httpToken, TOKEN_FILE } from "../state/mod.ts";
import type { Host } from "../host.ts";
import { type GatewayExtras, serveHttp } from "../transports/mod.ts";
import type { Printer } from "./printer.ts";
import { ClientDirectory, clientStorePath, tokenHash } from "../clients/mod.ts";

/**
 * Serve over HTTP until SIGTERM or SIGINT, then drain the calls in flight
 * (at most `http.drainS`) and stop.
 *
 * @param host The host.
 * @param config The configuration (`config.http.listen` is set).
 * @param printer Where the start-up line goes.
 * @param status The start-up line's status part (already shown through {@linkcode printable}).
 * @returns Resolves when the server has stopped.
 */
export async function serveOverHttp(
  host: Host,
  config: HostConfig,
  printer: Printer,
  status: string,
): Promise<void> {
  const settings = config.http;
  const listen = settings.listen!;
  const fixtures = settings.conformanceFixtures;
  const token = fixtures ? null : await httpToken(config.policy.stateDir, { logger: host.logger });
  const extras = fixtures ? await conformanceExtras() : undefined;
  const store = clientStorePath();
  // The clients `toolhost token add` made for this workspace, with the host's own token.
  const clients = token === null ? undefined : new ClientDirectory({
    store,
    workspace: config.policy.roots[0]!,
    roots: config.policy.roots,
    token,
    tokenSha256: await tokenHash(token),
    onError: (message) => host.logger.log("warn", message),
  });
  const http = await serveHttp(host, {
    hostname: listen.hostname,
    port: listen.port,
    token,
    ...(clients ? { clients } : {}),
    idleTimeoutMs: settings.idleTimeoutMs,
    maxSessions: settings.maxSessions,
    ...(extras ? { extras } : {}),
  });
  const where = `${http.url} (${
    token === null
      ? "no token"
      : `bearer token in ${config.policy.stateDir}/${TOKEN_FILE}; clients' tokens in ${
        store ?? "no list (neither XDG_CONFIG_HOME nor HOME is set)"
      }`
  })`;
  // One write: whoever reads the start-up line reads its warnings with it.
  printer.err(
    [
      `toolhost: ${status}; MCP over Streamable HTTP at ${printable(where)}`,
      ...warnings(config, http.url).map((line) => `toolhost: WARNING: ${printable(line)}`),
    ].join("\n"),
  );
  const stop = () => void stopOnce();
  let stopping: Promise<void> | undefined;
  const stopOnce = () =>
    stopping ??= http.shutdown(settings.drainMs).then((settled) => {
      if (!settled) host.logger.log("warn", "Stopping: calls still running were cancelled");
    });
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  try {
    await http.finished;
  } finally {
    Deno.removeSignalListener("SIGTERM", stop);
    Deno.removeSignalListener("SIGINT", stop);
  }
}

/**
 * The conformance suite's fixtures, test data kept out of the product's
 * folders: loaded only when `--conformance-fixtures` asks for them.
 */
async function conformanceExtras(): Promise<() => GatewayExtras> {
  const { conformanceFixtures } = await import("../../fixtures/conformance/fixtures.ts");
  return conformanceFixtures;
}

/** What the start-up line warns of: fixtures without a token, an address beyond loopback. */
function warnings(config: HostConfig, url: string): string[] {
  const lines: string[] = [];
  if (config.http.conformanceFixtures) {
    lines.push(
      `--conformance-fixtures: serving the MCP conformance suite's test tools to anyone on this machine, WITHOUT a token, at ${url} (the project's own tools are not served); for the conformance suite only`,
    );
  }
  if (!isLoopback(config.http.listen!.hostname)) {
    lines.push(
      `serving at ${url}, reachable from other machines: only the bearer token guards it, the traffic is not encrypted, and slow or half-open connections are not timed out (put a TLS reverse proxy in front)`,
    );
  }
  return lines;
}
