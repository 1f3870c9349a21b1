/**
 * Configuration: `toolhost.json` (optional) and the command line, resolved
 * once into a frozen, fully defaulted value.
 *
 * @module
 */

import { type HttpFlags, type HttpSettings, httpSettings } from "./http_settings.ts";
import {
  type ApprovalRule,
  approvalRules,
  type HookSettings,
  hookSettings,
} from "./hook_settings.ts";
import * as posix from "node:path/posix";
import { type Policy, type PolicyInput, resolvePolicy } from "../../security/policy.ts";
import { readSource, type TrustSettings } from "./_source.ts";
import { startedFiles } from "./_started_files.ts";
import { HOST_DEFAULTS } from "./defaults.ts";
import { type LogSettings, logSettings } from "./log_settings.ts";
import { findRipgrep, ripgrepOutsideRoots, type RipgrepSetting } from "./ripgrep.ts";
import type { ConfigFile, ShellSection, UpstreamEntry } from "./schema.ts";
import type { ToolSettings } from "./tool_settings.ts";
import type { PeerEntry } from "../../sinks/peers.ts";
import { type NetSettings, netSettings } from "./net_settings.ts";
import { type TelemetrySettings, telemetrySettings } from "./telemetry_settings.ts";

export {
  CONFIG_SCHEMA,
  type HostConfigInput,
  type ShellSection,
  type UpstreamEntry,
  type UpstreamPolicy,
} from "./schema.ts";
export { findRipgrep, RIPGREP_NOT_FOUND, type RipgrepSetting } from "./ripgrep.ts";
export { CONFIG_FILE, type FileTrust, type TrustOrigin, type TrustSettings } from "./_source.ts";
export type { LogSettings, SessionLogSettings } from "./log_settings.ts";
export { type KnownTools, type ToolSettings, unknownToolNames } from "./tool_settings.ts";

/** What the command line adds. */
export interface ConfigOverrides {
  /** Roots from `--root` (they replace the file's). */
  roots?: readonly string[];
  /** `--config FILE`: the config file to use instead of `<first root>/toolhost.json`. */
  configFile?: string;
  /** `--ripgrep`: auto, off, or a path. */
  ripgrep?: string;
  /** `--unprotect GLOB`: protected paths the user lifts from the command line. */
  unprotect?: readonly string[];
  /** Create the state directory when missing (default true; the launcher only computes it). */
  createStateDir?: boolean;
  /**
   * Walk the roots for where protected links lead and the hidden entries
   * below their tops (default true; the launcher, which only computes the
   * command line, skips it).
   */
  scan?: boolean;
  /** `--http`, `--allow-remote`, `--conformance-fixtures`. */
  http?: HttpFlags;
  /** `--hooks PORT`: serve the Hook API and dashboard on this loopback port. */
  hooks?: string;
}

/** The resolved configuration. */
export interface HostConfig {
  /** The policy. */
  readonly policy: Policy;
  /** Which tools and families are on, and whether output schemas are listed. */
  readonly tools: ToolSettings;
  /** How many tool workers. */
  readonly workers: number;
  /** A local call running longer is stopped. */
  readonly callTimeoutMs: number;
  /** The ripgrep binary the tool workers try (they check that it runs), or why none. */
  readonly ripgrep: RipgrepSetting;
  /** Confine the tool workers with Landlock where the kernel has it. */
  readonly landlock: boolean;
  /** The config file read, or null. */
  readonly configFile: string | null;
  /** The interaction log's settings. */
  readonly log: Readonly<LogSettings>;
  /** Upstream MCP servers by name (layer 3), from `upstream.mcpServers`. */
  readonly upstream: Readonly<Record<string, UpstreamEntry>>;
  /** The `.mcp.json` that lists efferent-copy peers (absolute). */
  readonly mcpJson: string;
  /** Its peers, as read once at start: from the bytes whose trust was judged. */
  readonly peers: Readonly<Record<string, PeerEntry>>;
  /** How long each sink's observe may take (`sinks.observeTimeoutMs`), when the user set it. */
  readonly observeTimeoutMs?: number;
  /**
   * How far the config file and `.mcp.json` apply: the user's own, trusted
   * project files (their servers run in the sandbox), or untrusted ones
   * (only what tightens; no servers, no peers).
   */
  readonly trust: TrustSettings;
  /** Protected paths lifted by `--unprotect` (the launcher passes them on). */
  readonly unprotectFlags: readonly string[];
  /** What in the configuration was ignored, and why (said at start and by `doctor`). */
  readonly warnings: readonly string[];
  /** The `shell` section: the sandbox for shell commands, git and bd (`host/sandbox/`). */
  readonly shell: Readonly<ShellSection>;
  /** Serving over Streamable HTTP (`--http` and the `http` section), or over stdio. */
  readonly http: Readonly<HttpSettings>;
  /** Where the Hook API and dashboard listen (loopback), or null when they are off (the default). */
  readonly hooks: HookSettings | null;
  /** The calls that wait for a human's approval. */
  readonly approvals: readonly ApprovalRule[];
  /** What fetch_url and web_search may reach, or null when they are off (`net: false`). */
  readonly net: NetSettings | null;
  /** Where spans and metrics are exported over OTLP/HTTP, or null when they are not (the default). */
  readonly telemetry: TelemetrySettings | null;
}

/**
 * Load and resolve the configuration. With no file and no flags: serve the
 * current directory with the default policy. A config file (or `.mcp.json`)
 * inside a root is project content: unless the user trusted that exact file
 * (`toolhost trust`), only what tightens the host applies, and a warning
 * names what was ignored and the command that trusts it (`_source.ts`).
 *
 * @param overrides What the command line says.
 * @returns The frozen configuration.
 * @throws {TypeError} When the file is not valid JSON or does not match the schema, or a root is missing.
 */
export async function loadConfig(overrides: ConfigOverrides = {}): Promise<HostConfig> {
  const warnings: string[] = [];
  const source = await readSource(overrides, warnings);
  const { file, trust } = source;
  const upstream = file.upstream?.mcpServers ?? {};
  const policy = await resolvePolicy({
    ...filePolicy(file, source.base),
    roots: source.roots,
    unprotect: [...(overrides.unprotect ?? []), ...(file.unprotect ?? [])],
    protectedFiles: startedFiles({
      configFile: source.path,
      mcpJson: source.mcpJson,
      peers: source.peers,
      trustStore: trust.store,
      // Programs that run outside the sandbox at the next start: the user's own unsandboxed servers.
      upstream: trust.config.from === "user" ? unsandboxed(upstream) : {},
      cwd: source.roots[0]!,
    }),
    createStateDir: overrides.createStateDir ?? true,
    scan: overrides.scan ?? true,
    ...definedOnly({ home: homeDirectory(), scratchDir: scratchPlace(source.roots) }),
  });
  if (policy.scan.truncated) {
    warnings.push(
      `the roots past the first ${
        policy.scan.entries - 1
      } entries: the start-up walk stops there, so where protected links there lead is not protected and hidden entries there are not hidden from commands`,
    );
  }
  const ripgrep = await findRipgrep(overrides.ripgrep ?? file.ripgrep ?? "auto");
  return Object.freeze({
    policy,
    tools: Object.freeze(definedOnly(file.tools ?? {})),
    workers: file.workers ?? HOST_DEFAULTS.workers,
    callTimeoutMs: file.callTimeoutMs ?? HOST_DEFAULTS.callTimeoutMs,
    landlock: file.landlock ?? true,
    ripgrep: Object.freeze(ripgrepOutsideRoots(ripgrep, policy.roots)),
    configFile: source.found ? source.path : null,
    log: logSettings(file.log),
    upstream: Object.freeze({ ...upstream }),
    mcpJson: source.mcpJson,
    peers: source.peers,
    ...definedOnly({ observeTimeoutMs: file.sinks?.observeTimeoutMs }),
    trust,
    unprotectFlags: Object.freeze([...(overrides.unprotect ?? [])]),
    warnings: Object.freeze(warnings),
    shell: Object.freeze({ ...file.shell }),
    http: Object.freeze(httpSettings(overrides.http ?? {}, file.http)),
    hooks: hookSettings(overrides.hooks, file.hooks),
    approvals: approvalRules(file.approvals),
    net: await netSettings(file.net, warnings),
    telemetry: telemetrySettings(file.telemetry, readEnv),
  });
}

/** An absolute path from the environment, when this process may read it and it is set. */
function envPath(name: string): string | undefined {
  try {
    const value = Deno.env.get(name);
    return value && value.startsWith("/") && value !== "/" ? value : undefined;
  } catch {
    return undefined; // not granted: the launcher, which may, passes it on (USER_DIRS_ENV)
  }
}

/** A variable, when this process may read it and it is set (the OpenTelemetry ones are granted only when export is on). */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** The user's home (`HOME`), when this process may read it. */
function homeDirectory(): string | undefined {
  return envPath("HOME");
}

/**
 * Where shell commands' writes wait to be merged into these roots: the
 * user's cache (`$XDG_CACHE_HOME`, else `~/.cache`), on the same file system
 * as a project under the home, so that the merge renames rather than copies;
 * `/var/tmp` when the cache lies inside a root (a root that is the home).
 */
function scratchPlace(roots: readonly string[]): string | undefined {
  const home = envPath("HOME");
  const cache = envPath("XDG_CACHE_HOME") ?? (home && `${home}/.cache`);
  if (cache === undefined) return undefined;
  const key = shortHash(roots.join("\0"));
  const inRoot = roots.some((root) => cache === root || cache.startsWith(`${root}/`));
  return inRoot
    ? `/var/tmp/toolhost-overlay-${shortHash(cache)}/${key}`
    : `${cache}/toolhost/overlay/${key}`;
}

/** A short, stable name for a text (FNV-1a, 32 bits, in hex). */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * The user's upstream servers that run outside the sandbox: a stdio server
 * in the user's own config runs as configured unless it says
 * `"sandbox": true` (or gives sandbox settings).
 */
function unsandboxed(
  upstream: Readonly<Record<string, UpstreamEntry>>,
): Record<string, UpstreamEntry> {
  return Object.fromEntries(
    Object.entries(upstream).filter(([, entry]) => !("command" in entry) || !entry.sandbox),
  );
}

/** The policy's settings the file gives (relative paths against `base`). */
function filePolicy(file: ConfigFile, base: string): PolicyInput {
  return definedOnly({
    stateDir: file.stateDir ? posix.resolve(base, file.stateDir) : undefined,
    blacklist: file.blacklist,
    unhide: file.unhide,
    limits: file.limits && definedOnly(file.limits),
    allowHardlinks: file.allowHardlinks,
    protect: file.protect,
  });
}

/** An object's keys, each optional and never `undefined` (for `exactOptionalPropertyTypes`). */
type Defined<T> = { [K in keyof T]?: NonNullable<T[K]> };

/** The same object without its `undefined` (or `null`) values. */
function definedOnly<T extends object>(value: T): Defined<T> {
  const out: Defined<T> = {};
  for (const key in value) {
    const each = value[key];
    if (each !== undefined && each !== null) out[key] = each;
  }
  return out;
}
