/**
 * Configuration: `toolhost.json` (optional) and the command line, resolved
 * once into a frozen, fully defaulted value.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { z } from "zod";
import { type Policy, resolvePolicy } from "../security/policy.ts";
import type { RegistryOptions } from "../tools/registry.ts";

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
  allowHardlinks: z.boolean().optional(),
  limits: z.object({
    maxReadBytes: z.number().int().positive().optional(),
    maxOutputChars: z.number().int().positive().optional(),
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
      "More argument keys whose values are redacted (besides password, token, secret, api_key, ...); a key containing one is redacted",
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
}

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
  /** Absolute path of ripgrep, or null when not used. */
  readonly ripgrep: string | null;
  /** Confine the tool workers with Landlock where the kernel has it. */
  readonly landlock: boolean;
  /** The config file read, or null. */
  readonly configFile: string | null;
  /** The raw parsed file (for sections later layers read). */
  readonly raw: Readonly<Record<string, unknown>>;
  /** The interaction log's settings. */
  readonly log: Readonly<
    { enabled: boolean; retentionDays: number; maxArgBytes: number; redactKeys?: string[] }
  >;
  /** Upstream MCP servers by name (layer 3), from `upstream.mcpServers`. */
  readonly upstream: Readonly<Record<string, UpstreamEntry>>;
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
  const raw = await readConfigFile(configFile, overrides.configFile !== undefined);
  const base = raw ? posix.dirname(configFile) : firstRoot;
  const fileRoots = (raw?.roots as string[] | undefined)?.map((root) => posix.resolve(base, root));
  const policy = await resolvePolicy({
    roots: overrides.roots?.map((root) => posix.resolve(root)) ?? fileRoots ?? [firstRoot],
    ...(raw?.stateDir ? { stateDir: posix.resolve(base, raw.stateDir as string) } : {}),
    ...(raw?.blacklist ? { blacklist: raw.blacklist as string[] } : {}),
    ...(raw?.limits ? { limits: raw.limits as Record<string, number> } : {}),
    ...(raw?.allowHardlinks !== undefined ? { allowHardlinks: raw.allowHardlinks as boolean } : {}),
  });
  const tools = (raw?.tools ?? {}) as RegistryOptions;
  return Object.freeze({
    policy,
    tools: Object.freeze({ ...tools }),
    workers: (raw?.workers as number | undefined) ?? 2,
    callTimeoutMs: (raw?.callTimeoutMs as number | undefined) ?? 60_000,
    landlock: (raw?.landlock as boolean | undefined) ?? true,
    ripgrep: await findRipgrep(overrides.ripgrep ?? (raw?.ripgrep as string | undefined) ?? "auto"),
    configFile: raw ? configFile : null,
    log: Object.freeze(logSettings(raw?.log as Record<string, unknown> | undefined)),
    upstream: Object.freeze({
      ...((raw?.upstream as { mcpServers?: Record<string, UpstreamEntry> } | undefined)
        ?.mcpServers ?? {}),
    }),
    raw: Object.freeze(raw ?? {}),
  });
}

function logSettings(
  raw: Record<string, unknown> | undefined,
): { enabled: boolean; retentionDays: number; maxArgBytes: number; redactKeys?: string[] } {
  const settings: {
    enabled: boolean;
    retentionDays: number;
    maxArgBytes: number;
    redactKeys?: string[];
  } = {
    enabled: (raw?.enabled as boolean | undefined) ?? true,
    retentionDays: (raw?.retentionDays as number | undefined) ?? 30,
    maxArgBytes: (raw?.maxArgBytes as number | undefined) ?? 4096,
  };
  if (raw?.redactKeys) settings.redactKeys = raw.redactKeys as string[];
  return settings;
}

async function readConfigFile(
  path: string,
  required: boolean,
): Promise<Record<string, unknown> | null> {
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
  return parsed.data as Record<string, unknown>;
}

/**
 * Find ripgrep: `off` → none; an absolute path → that file if executable;
 * `auto` → `rg` on the PATH (when the process may read PATH).
 *
 * @param setting `auto`, `off` or a path.
 * @returns The absolute path, or null.
 */
export async function findRipgrep(setting: string): Promise<string | null> {
  if (setting === "off") return null;
  const candidates: string[] = [];
  if (setting !== "auto") candidates.push(posix.resolve(setting));
  else {
    if (Deno.permissions.querySync({ name: "env", variable: "PATH" }).state !== "granted") {
      return null;
    }
    for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
      if (dir) candidates.push(`${dir}/rg`);
    }
  }
  for (const candidate of candidates) {
    try {
      const info = await Deno.stat(candidate);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return await Deno.realPath(candidate);
    } catch {
      // not here
    }
  }
  return null;
}
