/**
 * The command-line options that choose what is served, shared by the
 * launcher and every `toolhost` command.
 *
 * @module
 */

import type { ConfigOverrides, HttpFlags } from "../config/mod.ts";

/** The command-line options that choose what is served (the launcher's, and every command's). */
export const SERVE_OPTIONS = {
  root: { type: "string", multiple: true },
  config: { type: "string" },
  ripgrep: { type: "string" },
  unprotect: { type: "string", multiple: true },
  http: { type: "string" },
  "allow-remote": { type: "boolean" },
  "conformance-fixtures": { type: "boolean" },
  hooks: { type: "string" },
} as const;

/** The options of `toolhost token add`: a client's rights (`token_command.ts`). */
export const TOKEN_OPTIONS = {
  "read-only": { type: "boolean" },
  tools: { type: "string", multiple: true },
  "deny-tools": { type: "string", multiple: true },
  classes: { type: "string", multiple: true },
  "deny-classes": { type: "string", multiple: true },
  roots: { type: "string", multiple: true },
  "no-shell": { type: "boolean" },
  "no-net": { type: "boolean" },
  "calls-per-minute": { type: "string" },
  concurrent: { type: "string" },
} as const;

/** The values that parsed {@linkcode SERVE_OPTIONS} give. */
export interface ServeOptionValues {
  /** `--root`, each time it was given. */
  root?: string[];
  /** `--config`. */
  config?: string;
  /** `--ripgrep`. */
  ripgrep?: string;
  /** `--unprotect`, each time it was given. */
  unprotect?: string[];
  /** `--http [HOST:]PORT`. */
  http?: string;
  /** `--allow-remote`. */
  "allow-remote"?: boolean;
  /** `--conformance-fixtures`. */
  "conformance-fixtures"?: boolean;
  /** `--hooks PORT`. */
  hooks?: string;
}

/**
 * The configuration overrides that parsed {@linkcode SERVE_OPTIONS} give.
 *
 * @param values The parsed option values.
 * @returns The overrides.
 */
export function overridesFrom(values: ServeOptionValues): ConfigOverrides {
  return {
    ...(values.root ? { roots: values.root } : {}),
    ...(values.config ? { configFile: values.config } : {}),
    ...(values.ripgrep ? { ripgrep: values.ripgrep } : {}),
    ...(values.hooks === undefined ? {} : { hooks: values.hooks }),
    ...(values.unprotect ? { unprotect: values.unprotect } : {}),
    ...(values.http === undefined && !values["conformance-fixtures"] && !values["allow-remote"]
      ? {}
      : { http: httpFlags(values) }),
  };
}

/** The HTTP options as the configuration takes them. */
function httpFlags(values: ServeOptionValues): HttpFlags {
  return {
    ...(values.http === undefined ? {} : { http: values.http }),
    ...(values["allow-remote"] ? { allowRemote: true } : {}),
    ...(values["conformance-fixtures"] ? { conformanceFixtures: true } : {}),
  };
}
