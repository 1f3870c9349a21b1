/**
 * What the served process needs and was not granted, checked before any
 * tool worker starts: shared by `serve` and the served entry, which starts
 * its first worker before it loads the rest of the host.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { type HostConfig, hostPort, telemetryNet } from "../config/mod.ts";
import { assetPaths } from "../workers/asset_paths.ts";
import { SOURCE_DIRS } from "./scoped_command.ts";

/**
 * What this process needs to serve and was not granted: read on toolhost's
 * code (the tool workers load it) and on the tool assets, read and write on
 * the roots and the state directory, run for ripgrep, connect to the
 * OpenTelemetry collector. Checked before any
 * tool worker starts, so that flags printed before a dependency update are
 * one line, not a worker's stack trace.
 *
 * @param config The resolved configuration.
 * @returns What is missing, as "read \"/path\"" and the like; empty when nothing is.
 */
export async function missingGrants(config: HostConfig): Promise<string[]> {
  const missing: string[] = [];
  const need = (descriptor: Deno.PermissionDescriptor, what: string) => {
    if (Deno.permissions.querySync(descriptor).state !== "granted") missing.push(what);
  };
  for (const path of [...SOURCE_DIRS.map((url) => fromFileUrl(url)), ...(await assetPaths())]) {
    need({ name: "read", path }, `read "${path}"`);
  }
  for (const path of [...config.policy.roots, config.policy.stateDir]) {
    need({ name: "read", path }, `read "${path}"`);
    need({ name: "write", path }, `write "${path}"`);
  }
  const rg = config.ripgrep.path;
  if (rg !== null) need({ name: "run", command: rg }, `run "${rg}"`);
  for (const listen of [config.http.listen, config.hooks]) {
    if (listen === null) continue;
    const at = hostPort(listen);
    need({ name: "net", host: listen.port === 0 ? listen.hostname : at }, `listen on "${at}"`);
  }
  for (const at of telemetryNet(config.telemetry)) {
    need({ name: "net", host: at }, `connect to "${at}" (OpenTelemetry export)`);
  }
  // The OpenTelemetry SDK reads its OTEL_* variables: without them it throws at the first span.
  if (config.telemetry) {
    need({ name: "env", variable: "OTEL_EXPORTER_OTLP_HEADERS" }, `read the OTEL_* variables`);
  }
  return missing;
}
