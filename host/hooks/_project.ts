/**
 * `GET /api/project`: the resolved configuration as a human reads it, with
 * secrets redacted (upstream servers' and the shell's environment values,
 * and anything secret-shaped).
 *
 * @module
 */

import { REDACTED, Redactor } from "../../sinks/redact.ts";
import type { HostConfig } from "../config/mod.ts";

/**
 * The configuration, redacted.
 *
 * @param config The resolved configuration.
 * @returns Plain JSON.
 */
export function projectView(config: HostConfig): Record<string, unknown> {
  const { policy } = config;
  const view = {
    config_file: config.configFile,
    roots: policy.roots,
    state_dir: policy.stateDir,
    blacklist: policy.blacklist,
    protected: policy.protected,
    limits: policy.limits,
    tools: config.tools,
    workers: config.workers,
    call_timeout_ms: config.callTimeoutMs,
    ripgrep: config.ripgrep,
    landlock: config.landlock,
    log: config.log,
    upstream: Object.fromEntries(
      Object.entries(config.upstream).map(([name, entry]) => [name, withoutEnv(entry)]),
    ),
    mcp_json: config.mcpJson,
    shell: withoutEnv(config.shell),
    http: config.http,
    hooks: config.hooks,
    approvals: config.approvals,
    warnings: config.warnings,
  };
  return new Redactor(config.log.redactKeys ?? []).apply(
    JSON.parse(JSON.stringify(view)),
  ) as Record<string, unknown>;
}

/** An entry with each environment value redacted (their names stay). */
function withoutEnv(entry: object): object {
  const env = (entry as { env?: unknown }).env;
  if (env === null || typeof env !== "object") return entry;
  return { ...entry, env: Object.fromEntries(Object.keys(env).map((key) => [key, REDACTED])) };
}
