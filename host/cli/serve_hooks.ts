/**
 * Starting the Hook API and dashboard beside the MCP server (stdio or
 * HTTP), and saying at start what answers approvals.
 *
 * @module
 */

import { printable } from "../../security/printable.ts";
import type { HostConfig } from "../config/mod.ts";
import type { HooksServing } from "../hooks/mod.ts";
import type { Telemetry } from "../telemetry/mod.ts";
import { SERVER_INFO } from "../transports/mod.ts";
import type { Host } from "../host.ts";
import { HOOKS_TOKEN_FILE, hooksToken } from "../state/mod.ts";
import type { Printer } from "./printer.ts";

/**
 * Serve the Hook API when configured, and say where, and what answers the
 * approval rules (never a rule with no channel said nothing about).
 *
 * @param host The host.
 * @param config The configuration.
 * @param printer Where the lines go.
 * @returns The running Hook API, or undefined when it is off.
 */
export async function startHooks(
  host: Host,
  config: HostConfig,
  printer: Printer,
  telemetry: Telemetry | undefined,
): Promise<HooksServing | undefined> {
  const rules = config.approvals.length;
  const settings = config.hooks;
  if (settings === null) {
    if (rules > 0) {
      printer.err(
        `toolhost: approvals: ${rules} rule(s); the Hook API is off, so only an MCP client that supports elicitation can answer them (others time out); to answer from the dashboard, serve with --hooks 8999 (for a stdio client: "toolhost mcp-config --hooks 8999"), or put "hooks": {"port": 8999} in your own config file outside the roots (one inside them counts only once trusted: "toolhost trust")`,
      );
    }
    return undefined;
  }
  // startHostTelemetry starts it whenever the Hook API is on: GET /metrics reads its metrics.
  if (telemetry === undefined) throw new Error("The Hook API is on but the host's metrics are not");
  const token = await hooksToken(config.policy.stateDir, { logger: host.logger });
  // The Hook API's and dashboard's modules are loaded only when it is on.
  const { serveHooks } = await import("../hooks/mod.ts");
  const hooks = serveHooks(host, {
    hostname: settings.hostname,
    port: settings.port,
    token,
    askTimeoutMs: settings.askTimeoutMs,
    metrics: telemetry.metrics,
  });
  const tokenFile = printable(`${config.policy.stateDir}/${HOOKS_TOKEN_FILE}`);
  printer.err(
    `toolhost: Hook API and dashboard at ${
      printable(hooks.url)
    } (bearer token in ${tokenFile}; "toolhost dashboard" prints the dashboard's URL with it); approvals: ${
      rules === 0 ? "none configured" : `${rules} rule(s)`
    }`,
  );
  return hooks;
}

/**
 * Start the host's telemetry when something reads it: the Hook API (`GET /metrics`) or OTLP
 * export. Its modules (OpenTelemetry's SDK) are loaded only then.
 *
 * @param host The host.
 * @param config The configuration.
 * @returns The telemetry, or undefined when neither is on.
 */
export async function startHostTelemetry(
  host: Host,
  config: HostConfig,
): Promise<Telemetry | undefined> {
  if (config.hooks === null && config.telemetry === null) return undefined;
  const { startTelemetry } = await import("../telemetry/mod.ts");
  const parts = {
    status: () => host.status(),
    observe: host.dispatcher.observe.bind(host.dispatcher),
    sessions: host.sessions,
  };
  return startTelemetry(parts, config.telemetry, SERVER_INFO.version);
}
