/**
 * The scoped command line: `deno run <flags> serve_main.ts …` with exactly
 * the permissions what is configured needs (the roots, the state directory,
 * ripgrep, the upstream servers, efferent copy's peers, Deno for the network
 * worker), and nothing else.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { processFlags } from "../../security/permissions.ts";
import { findLibc } from "../../security/landlock.ts";
import { commandPath, peerNeeds, sinkCommands } from "../../sinks/peers.ts";
import { efferentCopyEnabled, sandboxed, selfEntries } from "../config/mod.ts";
import { type HostConfig, hostPort, HOSTS_FILE } from "../config/mod.ts";
import { RESOLV_CONF, RIPGREP_NOT_FOUND } from "../config/mod.ts";
import { assetPaths } from "../workers/asset_paths.ts";
import { IGNORED_ENV } from "../../tools/assets.ts";
import { computePlan, PLAN_ENV } from "../sandbox/plan.ts";
import { servedEnv, servedNet } from "./_served_needs.ts";
// The store alone: the launcher must not load the clients' scopes and access (host/clients/mod.ts),
// which bring in the providers, the state and the MCP client.
import { clientStorePath } from "../clients/store.ts";

/** The `toolhost` command (`bin/toolhost`): what `mcp-config` prints. */
export const TOOLHOST_BIN: URL = new URL("../../bin/toolhost", import.meta.url);

/** The served process's entry: the config and `serve`, not mod.ts's exports nor the workers' tools. */
export const ENTRY: URL = new URL("./serve_main.ts", import.meta.url);

/**
 * toolhost's own source folders: to start a tool worker, the process must be
 * able to read the worker's module graph (code only, no secrets).
 */
export const SOURCE_DIRS: readonly URL[] = Object.freeze(
  ["../", "../../security/", "../../tools/"].map((dir) => new URL(dir, import.meta.url)),
);

export { CLIENT_ENV } from "./_served_needs.ts";

/**
 * V8 settings for the served process (all its isolates: the host and each tool worker): a young
 * generation of at most 2 MB per semi-space (V8 lets it grow to 16 MB per isolate), and `gc()` for
 * the tool workers, which collect their garbage after each long call (`tool_worker.ts`). Measured
 * with `bench/python_bench.ts` (peak RSS over the whole run) and `bench/read_file_compare.ts` (mean
 * ratio to the bare server, 8 runs each, alternated): V8's defaults 374-382 MB; the semi-space cap
 * 292-312 MB, 1.35x; with `--optimize-for-size` too 199-211 MB but 1.60-1.65x (it slows the host's
 * own code, the SDK's parsing and checking of each message); with a lower
 * `--heap-growing-percent` (50-100) 237-255 MB but 1.42-1.50x (more full collections on the host's
 * thread); with the collections after long calls 239-258 MB and 1.33-1.41x.
 */
export const V8_FLAGS = "--v8-flags=--max-semi-space-size=2,--expose-gc";

/** What a permission error says once its colours and Deno's advice are taken out. */
// deno-lint-ignore no-control-regex -- Deno colours the messages of its permission errors
const DENO_ADVICE = /\x1b\[[0-9;]*m|,? run again with the --allow-\w+ flag/g;

/**
 * Whether an error says that this process lacks a Deno permission: an MCP
 * entry whose flags no longer match what toolhost needs (they were printed
 * before a dependency update, or by an older toolhost).
 *
 * @param error What was thrown.
 * @returns True for NotCapable, PermissionDenied and Deno's "Requires … access" errors.
 */
export function isPermissionError(error: unknown): boolean {
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return true;
  }
  const message = error instanceof Error ? error.message : String(error);
  return /Can't escalate parent thread permissions|Requires \w+ access to /.test(message);
}

/**
 * The one line that tells the user what to do about stale flags.
 *
 * @param reason What is missing, or the error that said so.
 * @returns The line, starting "toolhost: ".
 */
export function staleFlagsLine(reason: unknown): string {
  const text = reason instanceof Error ? reason.message : String(reason);
  const why = text.replace(DENO_ADVICE, "").replace(/\s*\n\s*/g, " ").trim().slice(0, 200);
  const toolhost = isCompiled() ? Deno.execPath() : fromFileUrl(TOOLHOST_BIN);
  return `toolhost: this MCP entry's Deno flags no longer match what toolhost needs (${why}); ` +
    `run "${toolhost} mcp-config" and replace the entry`;
}

/** A command line: the program and its arguments. */
export interface CommandLine {
  /** The program (the Deno executable). */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** The served process's command line, and what it adds to the environment. */
export interface ScopedLine extends CommandLine {
  /** Variables for the served process (the sandbox's plan), added to the client's environment. */
  env: Record<string, string>;
}

/** Options for {@linkcode scopedCommand}. */
export interface ScopeOptions {
  /**
   * When to grant what efferent copy's peers need: `"now"` when this
   * process's environment switches it on (the launcher, at each start, with
   * the client's environment), or `"any"` whenever `.mcp.json` lists peers
   * (`toolhost flags`: a command line printed once must work whatever the
   * client's `env` later says). Default `"now"`.
   */
  efferent?: "now" | "any";
}

/**
 * Whether this is a `deno compile` binary: its permissions are fixed at
 * compile time, so `start` cannot re-launch it with narrower flags.
 *
 * @returns True in a compiled binary.
 */
export function isCompiled(): boolean {
  return import.meta.url.includes("/deno-compile-");
}

/**
 * A `deno compile` binary's permissions are fixed when it is built: its
 * `start` serves in its own process (tool workers still scoped and confined).
 *
 * @param config The resolved configuration (roots, config file).
 * @returns This binary's `start` command line.
 */
export function compiledStart(config: HostConfig): CommandLine {
  const args = ["start", ...config.policy.roots.flatMap((root) => ["--root", root])];
  if (config.configFile) args.push("--config", config.configFile);
  return { command: Deno.execPath(), args };
}

/**
 * What upstream servers need from the process: run for exactly
 * their commands (by name and resolved path), net for exactly their hosts;
 * a server that runs in the sandbox needs only bwrap (`sandboxed`).
 * Tool code never gets these: the workers' permissions stay scoped.
 *
 * @param config The configuration.
 * @returns The binaries and hosts, and whether any server runs in the sandbox.
 */
export function upstreamNeeds(
  config: HostConfig,
): { run: string[]; net: string[]; sandboxed: boolean } {
  const run: string[] = [];
  const net: string[] = [];
  let confined = false;
  for (const entry of Object.values(config.upstream)) {
    if ("url" in entry && typeof entry.url === "string") {
      net.push(new URL(entry.url).host);
    } else if (sandboxed(entry, config) !== null) {
      confined = true;
    } else if ("command" in entry && typeof entry.command === "string") {
      run.push(entry.command);
      const cwd = typeof entry.cwd === "string" ? entry.cwd : config.policy.roots[0]!;
      const resolved = commandPath(entry.command, cwd);
      if (resolved && resolved !== entry.command) run.push(resolved);
    }
  }
  return { run, net, sandboxed: confined };
}

/** What efferent copy's peers need from the process, and whether it is granted at all. */
interface SinkNeeds {
  /** Whether the peers' needs are granted. */
  efferent: boolean;
  /** Their programs. */
  run: string[];
  /** Their hosts. */
  net: string[];
  /** The files their programs are. */
  read: string[];
}

/**
 * Efferent copy: run and net for exactly the peers in .mcp.json (never this
 * host itself); none for an untrusted `.mcp.json` inside a root (its peers
 * never start), and only their hosts for a trusted one (its stdio peers run
 * in the sandbox: bwrap).
 */
async function sinkNeeds(config: HostConfig, options: ScopeOptions): Promise<SinkNeeds> {
  const peers = await peerNeeds(config.mcpJson, selfEntries());
  const from = config.trust.mcpJson.from;
  const efferent = from !== "untrusted" &&
    (options.efferent === "any" ? peers.run.length + peers.net.length > 0 : efferentCopyEnabled());
  if (!efferent) return { efferent, run: [], net: [], read: [] };
  if (from === "project") return { efferent, run: [], net: [...peers.net], read: [...peers.read] };
  // As written (how they are spawned) and as absolute paths (relative ones, symlinks, PATH lookups).
  const absolute = await sinkCommands(config.mcpJson, selfEntries(), {
    cwd: config.policy.roots[0]!,
  });
  return { efferent, run: [...peers.run, ...absolute], net: [...peers.net], read: [...peers.read] };
}

/**
 * The user's own lists the served process reads: the trust list (it judges the config files again,
 * as this process did), and over HTTP the clients' tokens' hashes (read again when they change: a
 * revocation holds at the next request).
 */
function userLists(config: HostConfig): string[] {
  const clients = config.http.listen ? clientStorePath() : null;
  return [config.trust.store, clients].filter((path) => path !== null && path !== undefined);
}

/** The `serve` options that give the served process the configuration this one resolved. */
function serveArgs(config: HostConfig): string[] {
  const args = config.policy.roots.flatMap((root) => ["--root", root]);
  if (config.configFile) args.push("--config", config.configFile);
  const rg = config.ripgrep;
  args.push(
    `--ripgrep=${rg.path ?? (rg.reason.startsWith("switched off") ? "off" : RIPGREP_NOT_FOUND)}`,
  );
  for (const glob of config.unprotectFlags) args.push(`--unprotect=${glob}`);
  const { listen, allowRemote, conformanceFixtures } = config.http;
  if (listen) args.push(`--http=${hostPort(listen)}`);
  if (allowRemote) args.push("--allow-remote");
  if (conformanceFixtures) args.push("--conformance-fixtures");
  // The served process reads the config file again; only a port from the command line is passed on.
  if (config.hooks) args.push(`--hooks=${config.hooks.port}`);
  return args;
}

/**
 * The command line that serves `config`'s roots with the narrowest permissions:
 * read/write on the roots and state directory, read on the config and the
 * grammar files, run for exactly ripgrep and the configured servers.
 *
 * @param config The resolved configuration.
 * @param options When to grant what sinks need.
 * @returns The program and arguments.
 */
export async function scopedCommand(
  config: HostConfig,
  options: ScopeOptions = {},
): Promise<ScopedLine> {
  if (isCompiled()) return { ...compiledStart(config), env: {} };
  const upstream = upstreamNeeds(config);
  const sinks = await sinkNeeds(config, options);
  const clients = sinks.efferent || Object.keys(config.upstream).length > 0;
  const read = [
    ...SOURCE_DIRS.map((url) => fromFileUrl(url)),
    ...(await assetPaths()),
    // The server reads it for the programs its peers run (protected when inside a root).
    config.mcpJson,
    ...sinks.read,
    // The network worker's resolver takes its servers and the hosts file's names from these.
    ...(config.net ? [RESOLV_CONF, HOSTS_FILE] : []),
    ...userLists(config),
  ];
  const ripgrep = config.ripgrep.path !== null ? [config.ripgrep.path] : [];
  // The sandbox: the served process runs bwrap (or, unconfined, the shell) and takes the plan;
  // servers started in the sandbox need bwrap whether or not the shell is on.
  const plan = computePlan(config);
  const servers = upstream.sandboxed || (sinks.efferent && config.trust.mcpJson.from === "project");
  const programs = [
    ...(config.shell.enabled === false ? [] : [plan.bwrap ?? plan.unconfined]),
    ...(servers ? [plan.bwrap] : []),
  ].filter((path) => path !== null);
  const flags = processFlags(config.policy, {
    config: config.configFile ? [config.configFile] : [],
    read,
    // The network worker is a Deno process of its own, with --allow-net and nothing else.
    run: [
      ...ripgrep,
      ...programs,
      ...upstream.run,
      ...sinks.run,
      ...(config.net ? [Deno.execPath()] : []),
    ],
    // Not the network worker's: a process of its own, it has its own --allow-net.
    net: [...upstream.net, ...sinks.net, ...servedNet(config)],
    // The MCP client code reads these when it loads (for upstreams, and for sink discovery).
    env: servedEnv(config, clients),
    ignoreEnv: IGNORED_ENV,
    libc: config.landlock ? findLibc() : null,
  });
  // --quiet: Deno's own download lines (a cleared Deno cache) would only be noise in the client's log.
  const args = [
    "run",
    "--quiet",
    // bin/toolhost installed the packages; "auto" would check node_modules again at each start.
    "--node-modules-dir=manual",
    ...flags,
    V8_FLAGS,
    fromFileUrl(ENTRY),
    ...serveArgs(config),
  ];
  return { command: Deno.execPath(), args, env: { [PLAN_ENV]: JSON.stringify(plan) } };
}
