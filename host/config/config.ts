/**
 * Configuration: `toolhost.json` (optional) and the command line, resolved
 * once into a frozen, fully defaulted value.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { fileURLToPath as fromFileUrl } from "node:url";
import { z } from "zod";
import { isInside, type Policy, resolvePolicy } from "../../security/policy.ts";
import type { ProtectedFile } from "../../security/protected.ts";
import type { RegistryOptions } from "../../tools/registry.ts";
import { commandPath, programFiles, readMcpJson } from "../../sinks/peers.ts";

/** The config file's name, looked up at the first root. */
export const CONFIG_FILE = "toolhost.json";

/** toolhost's own keys on an upstream server entry (beside the `.mcp.json` ones). */
const UPSTREAM_POLICY = {
  timeoutMs: z.number().int().positive().optional().describe("Per-call timeout (default 60000)"),
  allowTools: z.array(z.string()).optional().describe("Only these of its tools"),
  denyTools: z.array(z.string()).optional().describe("Never these of its tools"),
};

const MCP_SERVER = z.union([
  z.object({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    ...UPSTREAM_POLICY,
  }).loose(),
  z.object({ type: z.enum(["http", "sse", "streamable-http"]), url: z.url(), ...UPSTREAM_POLICY })
    .loose(),
]);

/** One upstream server entry, as written in `toolhost.json`. */
export type UpstreamEntry = z.infer<typeof MCP_SERVER>;

/** The shape of `toolhost.json`. */
export const CONFIG_SCHEMA = z.object({
  roots: z.array(z.string().min(1)).optional().describe(
    "Project directories, relative to this file",
  ),
  stateDir: z.string().optional(),
  blacklist: z.array(z.string()).optional(),
  protect: z.array(z.string().min(1)).optional().describe(
    "More globs that no tool may write (besides the fixed protected paths)",
  ),
  unprotect: z.array(z.string().min(1)).optional().describe(
    "Protected paths to lift, exactly as listed; honoured only in a config file outside every root",
  ),
  allowHardlinks: z.boolean().optional(),
  limits: z.object({
    maxReadBytes: z.number().int().positive().optional(),
    maxOutputChars: z.number().int().min(4096).max(4 * 1024 * 1024).optional().describe(
      "The largest reply, in bytes of its JSON (text, structured content, _meta together; default 200000)",
    ),
    maxRequestBytes: z.number().int().min(64 * 1024).max(256 * 1024 * 1024).optional().describe(
      "The largest request line the host reads, in bytes (default 4 MiB); larger ones get a JSON-RPC error",
    ),
    maxSearchFileBytes: z.number().int().positive().optional(),
    maxEditBytes: z.number().int().positive().optional(),
  }).strict().optional(),
  tools: z.object({
    disabled: z.array(z.string()).optional(),
    enabled: z.array(z.string()).optional(),
  }).strict().optional(),
  workers: z.number().int().min(1).max(16).optional(),
  callTimeoutMs: z.number().int().positive().optional(),
  ripgrep: z.string().optional().describe(`"auto" (default), "off", or the path of rg`),
  landlock: z.boolean().optional().describe(
    "Confine tool workers with Linux Landlock (default true)",
  ),
  upstream: z.object({ mcpServers: z.record(z.string(), MCP_SERVER) }).optional(),
  sinks: z.object({ mcpJson: z.string().optional() }).strict().optional(),
  log: z.object({
    enabled: z.boolean().optional().describe("Write the interaction log (default true)"),
    retentionDays: z.number().int().min(1).max(3650).optional().describe(
      "Delete day files older than this (default 30)",
    ),
    maxArgBytes: z.number().int().min(64).optional().describe(
      "Cap on logged arguments (default 4096)",
    ),
    redactKeys: z.array(z.string()).optional().describe(
      "More argument keys whose values are redacted, at any depth, besides the defaults (password, pwd, secret, token, auth, api_key, credentials, cookie, ...): a key whose name contains one, ignoring case and separators, is redacted. Secret-shaped values (tokens, keys, URL passwords) are redacted under any key",
    ),
    maxDayBytes: z.number().int().min(64 * 1024).optional().describe(
      "The most one UTC day's log files may hold (default 64 MiB, at most maxTotalBytes); past 3/4 of it the oldest read-only calls are dropped first, calls of tools that write last, and each drop is recorded",
    ),
    maxTotalBytes: z.number().int().min(64 * 1024).optional().describe(
      "The most the whole interaction log may hold (default 512 MiB), dropped from the same way",
    ),
  }).strict().optional(),
}).strict();

/** `toolhost.json` as written. */
export type HostConfigInput = z.input<typeof CONFIG_SCHEMA>;

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
}

/** Ripgrep as configured: the binary the tool workers try, or why there is none. */
export type RipgrepSetting = { readonly path: string } | {
  readonly path: null;
  /** Why: switched off, or not found. */
  readonly reason: string;
};

/**
 * What `--ripgrep` says when `auto` found no ripgrep (the launcher tells the
 * served process, which may not search the PATH itself).
 */
export const RIPGREP_NOT_FOUND = "auto:not-found";

/** The resolved configuration. */
export interface HostConfig {
  /** The policy. */
  readonly policy: Policy;
  /** Which tools are on. */
  readonly tools: RegistryOptions;
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
  /** The raw parsed file (for sections later layers read). */
  readonly raw: Readonly<Record<string, unknown>>;
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
  const firstRoot = posix.resolve(overrides.roots?.[0] ?? Deno.cwd());
  const configFile = overrides.configFile
    ? posix.resolve(overrides.configFile)
    : `${firstRoot}/${CONFIG_FILE}`;
  const file = await readConfigFile(configFile, overrides.configFile !== undefined);
  const raw = file ?? {};
  const base = file ? posix.dirname(configFile) : firstRoot;
  const roots = overrides.roots?.map((root) => posix.resolve(root)) ??
    raw.roots?.map((root) => posix.resolve(base, root)) ?? [firstRoot];
  const mcpJson = raw.sinks?.mcpJson
    ? posix.resolve(base, raw.sinks.mcpJson)
    : `${roots[0]}/.mcp.json`;
  const warnings: string[] = [];
  const unprotect = [...(overrides.unprotect ?? [])];
  if (raw.unprotect && raw.unprotect.length > 0) {
    if (await insideRoots(configFile, roots)) {
      warnings.push(
        `"unprotect" in ${configFile} is ignored: the file lies inside a root, where a tool could have written it; lift protected paths with --unprotect or a config file outside the roots`,
      );
    } else unprotect.push(...raw.unprotect);
  }
  const upstream = raw.upstream?.mcpServers ?? {};
  const policy = await resolvePolicy({
    roots,
    ...(raw.stateDir ? { stateDir: posix.resolve(base, raw.stateDir) } : {}),
    ...(raw.blacklist ? { blacklist: raw.blacklist } : {}),
    ...(raw.limits ? { limits: definedOnly(raw.limits) } : {}),
    ...(raw.allowHardlinks !== undefined ? { allowHardlinks: raw.allowHardlinks } : {}),
    ...(raw.protect ? { protect: raw.protect } : {}),
    unprotect,
    protectedFiles: await startedFiles(configFile, mcpJson, upstream, roots[0]!),
    createStateDir: overrides.createStateDir ?? true,
  });
  let ripgrep = await findRipgrep(overrides.ripgrep ?? raw.ripgrep ?? "auto");
  if (ripgrep.path !== null && isInside(ripgrep.path, policy.roots)) {
    // A tool could rewrite it, and its process has no Deno sandbox.
    ripgrep = {
      path: null,
      reason: `"${ripgrep.path}" lies inside a root, where a tool could rewrite it`,
    };
  }
  return Object.freeze({
    policy,
    tools: Object.freeze(definedOnly(raw.tools ?? {})),
    workers: raw.workers ?? 2,
    callTimeoutMs: raw.callTimeoutMs ?? 60_000,
    landlock: raw.landlock ?? true,
    ripgrep: Object.freeze(ripgrep),
    configFile: file ? configFile : null,
    log: Object.freeze(logSettings(raw.log)),
    upstream: Object.freeze({ ...upstream }),
    mcpJson,
    unprotectFlags: Object.freeze([...(overrides.unprotect ?? [])]),
    warnings: Object.freeze(warnings),
    raw: Object.freeze(raw),
  });
}

/** Whether a path (existing or not) lies inside one of the roots, judged on real paths. */
async function insideRoots(path: string, roots: readonly string[]): Promise<boolean> {
  const real = await Deno.realPath(path).catch(() => path);
  const realRoots = await Promise.all(roots.map((root) => Deno.realPath(root).catch(() => root)));
  return isInside(real, realRoots);
}

/**
 * Files this host, or the user's MCP client, will run or obey at the next
 * start: its configuration, the programs of its upstream servers and of the
 * `.mcp.json` peers, its own code and Deno. Protected where they lie inside
 * a root (the policy keeps those).
 */
async function startedFiles(
  configFile: string,
  mcpJson: string,
  upstream: Readonly<Record<string, unknown>>,
  cwd: string,
): Promise<ProtectedFile[]> {
  const config = "a configuration file toolhost reads";
  const files: ProtectedFile[] = [
    { path: configFile, why: config },
    { path: mcpJson, why: config },
    { path: fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, ""), why: OWN_CODE },
  ];
  try {
    files.push({ path: Deno.execPath(), why: "the Deno that runs toolhost" });
  } catch {
    // not visible from here, so not inside a root either
  }
  const started = (where: string) => ({ path, server }: { path: string; server: string }) => ({
    path,
    why: `a program started for "${server}" (${where})`,
  });
  files.push(...programFiles(upstream, cwd).map(started("upstream.mcpServers")));
  files.push(...programFiles(await readMcpJson(mcpJson), cwd).map(started(".mcp.json")));
  return files;
}

/** Why toolhost's own directory is protected when a root holds it. */
const OWN_CODE = "toolhost's own code (it runs, unconfined, at the next start)";

/** The same object without its `undefined` values (for `exactOptionalPropertyTypes`). */
function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, each]) => each !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** The interaction log's settings, resolved. */
export interface LogSettings {
  /** Write the log. */
  enabled: boolean;
  /** Day files older than this many days are deleted. */
  retentionDays: number;
  /** Logged arguments are cut to this many bytes of JSON. */
  maxArgBytes: number;
  /** The most one UTC day's files may hold (at most {@linkcode LogSettings.maxTotalBytes}). */
  maxDayBytes: number;
  /** The most all the log's files may hold. */
  maxTotalBytes: number;
  /** More argument keys to redact. */
  redactKeys?: string[];
}

/**
 * The log's caps by default. A day's 64 MiB hold some 15,000 calls at the
 * 4 KiB argument cap, or some 200,000 ordinary ones — more than a busy agent
 * makes — and a whole day is read in well under a second; 512 MiB keep eight
 * such days (30 of ordinary use) and bound what read_interactions may scan.
 */
const LOG_CAPS = { maxDayBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

function logSettings(raw: ConfigFile["log"]): LogSettings {
  const maxTotalBytes = raw?.maxTotalBytes ?? LOG_CAPS.maxTotalBytes;
  const settings: LogSettings = {
    enabled: raw?.enabled ?? true,
    retentionDays: raw?.retentionDays ?? 30,
    maxArgBytes: raw?.maxArgBytes ?? 4096,
    maxDayBytes: Math.min(raw?.maxDayBytes ?? LOG_CAPS.maxDayBytes, maxTotalBytes),
    maxTotalBytes,
  };
  if (raw?.redactKeys) settings.redactKeys = raw.redactKeys;
  return settings;
}

/** `toolhost.json` as parsed. */
type ConfigFile = z.output<typeof CONFIG_SCHEMA>;

async function readConfigFile(path: string, required: boolean): Promise<ConfigFile | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (
      !required &&
      (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable)
    ) return null;
    throw new TypeError(`Cannot read config "${path}": ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`Cannot parse config "${path}": ${(error as Error).message}`);
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

/**
 * Find ripgrep: `off` → none; a path → that binary (the tool workers check
 * that it runs, and say why when it does not); `auto` → `rg` on the PATH
 * (when the process may read PATH and the directories on it).
 *
 * @param setting `auto`, `off`, a path, or {@linkcode RIPGREP_NOT_FOUND}.
 * @returns The binary, or why there is none.
 */
export async function findRipgrep(setting: string): Promise<RipgrepSetting> {
  if (setting === "off") return { path: null, reason: "switched off (ripgrep: off)" };
  const notFound = { path: null, reason: "rg was not found on the PATH" } as const;
  if (setting === RIPGREP_NOT_FOUND) return notFound;
  if (setting !== "auto") {
    const path = posix.resolve(setting);
    return { path: await Deno.realPath(path).catch(() => path) };
  }
  if (Deno.permissions.querySync({ name: "env", variable: "PATH" }).state !== "granted") {
    return { path: null, reason: "the PATH could not be read to look for rg" };
  }
  const found = commandPath("rg", "/");
  return found === undefined ? notFound : { path: await Deno.realPath(found) };
}
