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
import { isInside, type Policy, type PolicyInput, resolvePolicy } from "../../security/policy.ts";
import { startedFiles } from "./_started_files.ts";
import { type LogSettings, logSettings } from "./log_settings.ts";
import { findRipgrep, ripgrepOutsideRoots, type RipgrepSetting } from "./ripgrep.ts";
import {
  CONFIG_SCHEMA,
  type ConfigFile,
  type HooksSection,
  type ShellSection,
  type UpstreamEntry,
} from "./schema.ts";
import type { ToolSettings } from "./tool_settings.ts";
import { type NetSettings, netSettings } from "./net_settings.ts";

export {
  CONFIG_SCHEMA,
  type HostConfigInput,
  type ShellSection,
  type UpstreamEntry,
  type UpstreamPolicy,
} from "./schema.ts";
export { findRipgrep, RIPGREP_NOT_FOUND, type RipgrepSetting } from "./ripgrep.ts";
export type { LogSettings, SessionLogSettings } from "./log_settings.ts";
export { type KnownTools, type ToolSettings, unknownToolNames } from "./tool_settings.ts";

/** The config file's name, looked up at the first root. */
export const CONFIG_FILE = "toolhost.json";

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
}

/**
 * Load and resolve the configuration. With no file and no flags: serve the
 * current directory with the default policy.
 *
 * @param overrides What the command line says.
 * @returns The frozen configuration.
 * @throws {TypeError} When the file is not valid JSON or does not match the schema, or a root is missing.
 */
export async function loadConfig(overrides: ConfigOverrides = {}): Promise<HostConfig> {
  const source = await readSource(overrides);
  const file = source.file ?? {};
  const warnings: string[] = [];
  const upstream = file.upstream?.mcpServers ?? {};
  const policy = await resolvePolicy({
    ...filePolicy(file, source.base),
    roots: source.roots,
    unprotect: [...(overrides.unprotect ?? []), ...(await fileUnprotect(source, warnings))],
    protectedFiles: await startedFiles({
      configFile: source.path,
      mcpJson: source.mcpJson,
      upstream,
      cwd: source.roots[0]!,
    }),
    createStateDir: overrides.createStateDir ?? true,
  });
  const ripgrep = await findRipgrep(overrides.ripgrep ?? file.ripgrep ?? "auto");
  const shell = await fileShell(source, warnings);
  const hooks = await fileHooks(source, overrides, warnings);
  const trusted = !(await insideRoots(source.path, source.roots));
  const net = await netSettings(file.net, trusted, warnings);
  return Object.freeze({
    policy,
    tools: Object.freeze(definedOnly(file.tools ?? {})),
    workers: file.workers ?? 2,
    callTimeoutMs: file.callTimeoutMs ?? 60_000,
    landlock: file.landlock ?? true,
    ripgrep: Object.freeze(ripgrepOutsideRoots(ripgrep, policy.roots)),
    configFile: source.file ? source.path : null,
    log: logSettings(file.log),
    upstream: Object.freeze({ ...upstream }),
    mcpJson: source.mcpJson,
    unprotectFlags: Object.freeze([...(overrides.unprotect ?? [])]),
    warnings: Object.freeze(warnings),
    shell: Object.freeze(shell),
    http: Object.freeze(httpSettings(overrides.http ?? {}, file.http)),
    hooks: hookSettings(overrides.hooks, hooks),
    approvals: approvalRules(file.approvals),
    net,
  });
}

/** Where the configuration comes from, and the paths it names, made absolute. */
interface Source {
  /** The config file's path (read or not). */
  readonly path: string;
  /** What it says, or null when there is none. */
  readonly file: ConfigFile | null;
  /** What the file's relative paths are against: its directory, or the first root. */
  readonly base: string;
  /** The roots: the command line's, else the file's, else the current directory. */
  readonly roots: string[];
  /** The `.mcp.json` that lists efferent-copy peers. */
  readonly mcpJson: string;
}

/** Find and read the config file, and resolve the roots and `.mcp.json`. */
async function readSource(overrides: ConfigOverrides): Promise<Source> {
  const firstRoot = posix.resolve(overrides.roots?.[0] ?? Deno.cwd());
  const path = overrides.configFile
    ? posix.resolve(overrides.configFile)
    : `${firstRoot}/${CONFIG_FILE}`;
  const file = await readConfigFile(path, overrides.configFile !== undefined);
  const base = file ? posix.dirname(path) : firstRoot;
  const roots = overrides.roots?.map((root) => posix.resolve(root)) ??
    file?.roots?.map((root) => posix.resolve(base, root)) ?? [firstRoot];
  const mcpJson = file?.sinks?.mcpJson
    ? posix.resolve(base, file.sinks.mcpJson)
    : `${roots[0]}/.mcp.json`;
  return { path, file, base, roots, mcpJson };
}

/** The policy's settings the file gives (relative paths against `base`). */
function filePolicy(file: ConfigFile, base: string): PolicyInput {
  return definedOnly({
    stateDir: file.stateDir ? posix.resolve(base, file.stateDir) : undefined,
    blacklist: file.blacklist,
    limits: file.limits && definedOnly(file.limits),
    allowHardlinks: file.allowHardlinks,
    protect: file.protect,
  });
}

/**
 * The file's `unprotect`, honoured only when the file lies outside every
 * root (a tool could have written one inside); else a warning says so.
 */
async function fileUnprotect(source: Source, warnings: string[]): Promise<string[]> {
  const lifted = source.file?.unprotect ?? [];
  if (lifted.length === 0) return [];
  if (!(await insideRoots(source.path, source.roots))) return lifted;
  warnings.push(
    `"unprotect" in ${source.path} is ignored: the file lies inside a root, where a tool could have written it; lift protected paths with --unprotect or a config file outside the roots`,
  );
  return [];
}

/** The `shell` keys that loosen the sandbox (or name a program it runs). */
const SHELL_LOOSENING = ["unconfined", "network", "bwrap", "env", "path"] as const;

/**
 * The file's `shell` section. Its loosening keys are honoured only when the
 * file lies outside every root, as `unprotect` is: a cloned repository may
 * ship a `toolhost.json` of its own, and must not open the sandbox (run
 * commands unconfined, share the network, name the program that sandboxes,
 * pass host variables in, mount more of the host).
 */
async function fileShell(source: Source, warnings: string[]): Promise<ShellSection> {
  const shell = { ...source.file?.shell };
  const loosening = SHELL_LOOSENING.filter((key) => shell[key] !== undefined);
  if (loosening.length === 0 || !(await insideRoots(source.path, source.roots))) return shell;
  for (const key of loosening) delete shell[key];
  warnings.push(
    `"shell.${
      loosening.join('", "shell.')
    }" in ${source.path} ignored: the file lies inside a root, where a cloned repository could have put it; set them with a config file outside the roots`,
  );
  return shell;
}

/**
 * The `hooks` section, honoured only in a config file outside every root (as
 * `--http` is the command line's alone): a cloned repository's config must
 * not open a port. `--hooks PORT` says it from the command line.
 */
async function fileHooks(
  source: Source,
  overrides: ConfigOverrides,
  warnings: string[],
): Promise<HooksSection | undefined> {
  const hooks = source.file?.hooks;
  if (hooks === undefined || overrides.hooks !== undefined) return hooks;
  if (hooks.enabled === false || !(await insideRoots(source.path, source.roots))) return hooks;
  warnings.push(
    `"hooks" in ${source.path} ignored: the file lies inside a root, where a cloned repository could have put it, and the Hook API opens a port; start with --hooks PORT, or set it in a config file outside the roots`,
  );
  return undefined;
}

/** Whether a path (existing or not) lies inside one of the roots, judged on real paths. */
async function insideRoots(path: string, roots: readonly string[]): Promise<boolean> {
  // A path that does not exist (yet) is judged as written.
  const real = await Deno.realPath(path).catch(() => path);
  const realRoots = await Promise.all(roots.map((root) => Deno.realPath(root).catch(() => root)));
  return isInside(real, realRoots);
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

/** Read and check a config file; a missing one that was not asked for is none. */
async function readConfigFile(path: string, required: boolean): Promise<ConfigFile | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const absent = error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable;
    if (absent && !required) return null; // no file: the defaults serve
    throw new TypeError(`Cannot read config "${path}": ${messageOf(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`Cannot parse config "${path}": ${messageOf(error)}`);
  }
  const parsed = CONFIG_SCHEMA.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      `${issue.path.join(".") || "(top)"}: ${issue.message}`
    );
    throw new TypeError(`Cannot use config "${path}": ${issues.join("; ")}`);
  }
  return parsed.data;
}

/** An error's message (the file APIs and `JSON.parse` throw `Error`s). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
