/**
 * The served process's network and environment beyond its roots: the
 * addresses it listens on (MCP over HTTP, the Hook API), the OpenTelemetry
 * collector it exports to, and the variables the MCP client code and the
 * OpenTelemetry SDK read — each only when what needs it is configured.
 *
 * @module
 */

import { EFFERENT_ENV, USER_DIRS_ENV } from "../config/mod.ts";
import { bracketed, type HostConfig, hostPort } from "../config/mod.ts";
import { TELEMETRY_ENV, telemetryNet } from "../config/mod.ts";
import { LAUNCH_ENV } from "../launch_status.ts";
import { PLAN_ENV } from "../sandbox/plan.ts";

/**
 * The environment variables the MCP client code reads to start servers (the
 * SDK's default inherited set, and what cross-spawn looks at).
 */
export const CLIENT_ENV: readonly string[] = Object.freeze(
  ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "OSTYPE", "PATHEXT", "NODE_V8_COVERAGE"],
);

/**
 * Where the served process connects or listens: exactly the HTTP and Hook API addresses (any port
 * for 0), and the OTLP collector's `host:port` when export is on.
 *
 * @param config The resolved configuration.
 * @returns Deno `--allow-net` entries.
 */
export function servedNet(config: HostConfig): string[] {
  const listens = [config.http.listen, config.hooks].filter((listen) => listen !== null);
  return [
    ...listens.map((listen) => listen.port === 0 ? bracketed(listen.hostname) : hostPort(listen)),
    ...telemetryNet(config.telemetry),
  ];
}

/**
 * The variables the served process reads.
 *
 * @param config The resolved configuration.
 * @param clients Whether it runs MCP clients (upstream servers, efferent copy's peers).
 * @returns Deno `--allow-env` entries.
 */
export function servedEnv(config: HostConfig, clients: boolean): string[] {
  return [
    ...EFFERENT_ENV,
    PLAN_ENV,
    LAUNCH_ENV,
    ...USER_DIRS_ENV,
    ...(clients ? CLIENT_ENV : []),
    ...(config.telemetry ? TELEMETRY_ENV : []),
  ];
}
