/**
 * Where efferent copy is switched on and where its peers are listed.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { fileURLToPath } from "node:url";
import type { HostConfig } from "./config.ts";

/** The variables that switch efferent copy on and off (seed 000). */
export const EFFERENT_ENV: readonly string[] = Object.freeze([
  "EFFERENT_COPY_ENABLE",
  "EFFERENT_COPY_DISABLE",
]);

/**
 * Whether efferent copy is on: `EFFERENT_COPY_ENABLE=1` turns it on,
 * `EFFERENT_COPY_DISABLE=1` forces it off; an explicit choice wins.
 *
 * @param explicit The caller's choice, if any.
 * @returns On or off.
 */
export function efferentCopyEnabled(explicit?: boolean): boolean {
  if (explicit !== undefined) return explicit;
  const read = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
      ? Deno.env.get(name)
      : undefined;
  return read("EFFERENT_COPY_ENABLE") === "1" && read("EFFERENT_COPY_DISABLE") !== "1";
}

/**
 * The `.mcp.json` that lists the peers: `sinks.mcpJson` from the config
 * (relative to the config file), else the first root's.
 *
 * @param config The configuration.
 * @returns Its absolute path.
 */
export function mcpJsonPath(config: HostConfig): string {
  const configured = (config.raw.sinks as { mcpJson?: string } | undefined)?.mcpJson;
  if (!configured) return `${config.policy.roots[0]}/.mcp.json`;
  const base = config.configFile ? posix.dirname(config.configFile) : config.policy.roots[0]!;
  return posix.resolve(base, configured);
}

/** This host's entry script, for the self-reference defence. */
export function selfEntry(): string {
  return fileURLToPath(new URL("../mod.ts", import.meta.url));
}
