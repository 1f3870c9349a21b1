/**
 * The launcher: the command line that serves a project with the narrowest
 * permissions, computed from what is configured *at each start*.
 *
 * `mcp-config` prints a command that runs this module as a program. It reads
 * the configuration, `.mcp.json` and the environment the MCP client gave it
 * (so `EFFERENT_COPY_ENABLE` set in the client's `env` counts), finds
 * ripgrep, libc and the configured servers, and then replaces itself
 * (`execve`) with `deno run <scoped flags> mod.ts serve`: one process, the
 * client's own, with exactly the permissions what is configured now needs.
 * The launcher itself may read anywhere and the environment, and load libc;
 * it never writes, connects or serves, and runs no tool code.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath as fromFileUrl } from "node:url";
import { processFlags } from "../../security/permissions.ts";
import { findLibc } from "../../security/landlock.ts";
import { commandPath, peerNeeds, sinkCommands } from "../../sinks/peers.ts";
import { EFFERENT_ENV, efferentCopyEnabled, selfEntries } from "../config/efferent_env.ts";
import { TOOL_ASSETS } from "../../tools/assets.ts";
import {
  type ConfigOverrides,
  type HostConfig,
  loadConfig,
  RIPGREP_NOT_FOUND,
} from "../config/config.ts";
import { execProcess } from "./exec.ts";

/** The entry module (`mod.ts`) this host runs from. */
export const ENTRY: URL = new URL("../../mod.ts", import.meta.url);

/** This module: the program `mcp-config` prints. */
export const LAUNCHER: URL = new URL(import.meta.url);

/**
 * toolhost's own source folders: to start a tool worker, the process must be
 * able to read the worker's module graph (code only, no secrets).
 */
export const SOURCE_DIRS: readonly URL[] = Object.freeze(
  ["../", "../../security/", "../../tools/"].map((dir) => new URL(dir, import.meta.url)),
);

/**
 * Whether this is a `deno compile` binary: its permissions are fixed at
 * compile time, so `start` cannot re-launch it with narrower flags.
 */
export function isCompiled(): boolean {
  return import.meta.url.includes("/deno-compile-");
}

/**
 * The environment variables the MCP client code reads to start servers (the
 * SDK's default inherited set, and what cross-spawn looks at).
 */
export const CLIENT_ENV: readonly string[] = Object.freeze(
  ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "OSTYPE", "PATHEXT", "NODE_V8_COVERAGE"],
);

/** The command-line options that choose what is served (the launcher's, and every command's). */
export const SERVE_OPTIONS = {
  root: { type: "string", multiple: true },
  config: { type: "string" },
  ripgrep: { type: "string" },
  unprotect: { type: "string", multiple: true },
} as const;

/**
 * The configuration overrides that parsed {@linkcode SERVE_OPTIONS} give.
 *
 * @param values The parsed option values.
 * @returns The overrides.
 */
export function overridesFrom(
  values: { root?: string[]; config?: string; ripgrep?: string; unprotect?: string[] },
): ConfigOverrides {
  return {
    ...(values.root ? { roots: values.root } : {}),
    ...(values.config ? { configFile: values.config } : {}),
    ...(values.ripgrep ? { ripgrep: values.ripgrep } : {}),
    ...(values.unprotect ? { unprotect: values.unprotect } : {}),
  };
}

/**
 * What upstream servers need from the process: run for exactly
 * their commands (by name and resolved path), net for exactly their hosts.
 * Tool code never gets these: the workers' permissions stay scoped.
 *
 * @param config The configuration.
 * @returns The binaries and hosts.
 */
export function upstreamNeeds(config: HostConfig): { run: string[]; net: string[] } {
  const run: string[] = [];
  const net: string[] = [];
  for (const entry of Object.values(config.upstream)) {
    if ("url" in entry && typeof entry.url === "string") {
      net.push(new URL(entry.url).host);
    } else if ("command" in entry && typeof entry.command === "string") {
      run.push(entry.command);
      const cwd = typeof entry.cwd === "string" ? entry.cwd : config.policy.roots[0]!;
      const resolved = commandPath(entry.command, cwd);
      if (resolved && resolved !== entry.command) run.push(resolved);
    }
  }
  return { run, net };
}

/** A command line: the program and its arguments. */
export interface CommandLine {
  /** The program (the Deno executable). */
  command: string;
  /** Its arguments. */
  args: string[];
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
): Promise<CommandLine> {
  if (isCompiled()) return compiledStart(config);
  const upstream = upstreamNeeds(config);
  // Efferent copy: run and net for exactly the peers in .mcp.json (never this host itself).
  const sinks: { run: string[]; net: string[]; read: string[] } = { run: [], net: [], read: [] };
  const peers = await peerNeeds(config.mcpJson, selfEntries());
  const efferent = options.efferent === "any"
    ? peers.run.length + peers.net.length > 0
    : efferentCopyEnabled();
  const clients = efferent || Object.keys(config.upstream).length > 0;
  if (efferent) {
    // As written (how they are spawned) and as absolute paths (relative ones, symlinks, PATH lookups).
    const absolute = await sinkCommands(config.mcpJson, selfEntries(), {
      cwd: config.policy.roots[0]!,
    });
    sinks.run.push(...peers.run, ...absolute);
    sinks.net.push(...peers.net);
    sinks.read.push(...peers.read);
  }
  const read = [
    ...SOURCE_DIRS.map((url) => fromFileUrl(url)),
    ...(await assetPaths()),
    // The server reads it for the programs its peers run (protected when inside a root).
    config.mcpJson,
    ...sinks.read,
  ];
  const run = [
    ...(config.ripgrep.path !== null ? [config.ripgrep.path] : []),
    ...upstream.run,
    ...sinks.run,
  ];
  const flags = processFlags(config.policy, {
    config: config.configFile ? [config.configFile] : [],
    read,
    run,
    net: [...upstream.net, ...sinks.net],
    // The MCP client code reads these when it loads (for upstreams, and for sink discovery).
    env: [...EFFERENT_ENV, ...(clients ? CLIENT_ENV : [])],
    libc: config.landlock ? findLibc() : null,
  });
  const args = ["run", ...flags, V8_FLAGS, fromFileUrl(ENTRY), "serve"];
  for (const root of config.policy.roots) args.push("--root", root);
  if (config.configFile) args.push("--config", config.configFile);
  const rg = config.ripgrep;
  args.push(
    `--ripgrep=${rg.path ?? (rg.reason.startsWith("switched off") ? "off" : RIPGREP_NOT_FOUND)}`,
  );
  for (const glob of config.unprotectFlags) args.push(`--unprotect=${glob}`);
  return { command: Deno.execPath(), args };
}

/**
 * A `deno compile` binary's permissions are fixed when it is built: its
 * `start` serves in its own process (tool workers still scoped and confined).
 */
function compiledStart(config: HostConfig): CommandLine {
  const args = ["start", ...config.policy.roots.flatMap((root) => ["--root", root])];
  if (config.configFile) args.push("--config", config.configFile);
  return { command: Deno.execPath(), args };
}

/**
 * The Deno flags of the launcher: read (the configuration, `.mcp.json`, the
 * PATH) and the environment, and libc for `execve` (or, without libc, run
 * for exactly this Deno to start the server as a child). No write, no net.
 *
 * @returns The flags.
 */
export function launcherFlags(): string[] {
  const libc = findLibc();
  return [
    "--allow-read",
    "--allow-env",
    libc ? `--allow-ffi=${libc}` : `--allow-run=${Deno.execPath()}`,
    "--no-prompt",
  ];
}

/**
 * The command `mcp-config` prints: the launcher, with the roots and options
 * given now; it computes the scoped server's flags each time it starts.
 *
 * @param config The resolved configuration (roots, config file).
 * @param overrides The options as given (ripgrep, unprotect).
 * @returns The program and arguments.
 */
export function launchCommand(config: HostConfig, overrides: ConfigOverrides): CommandLine {
  if (isCompiled()) return compiledStart(config);
  const args = ["run", ...launcherFlags(), fromFileUrl(LAUNCHER)];
  for (const root of config.policy.roots) args.push("--root", root);
  if (config.configFile) args.push("--config", config.configFile);
  if (overrides.ripgrep) args.push(`--ripgrep=${overrides.ripgrep}`);
  for (const glob of overrides.unprotect ?? []) args.push(`--unprotect=${glob}`);
  return { command: Deno.execPath(), args };
}

/**
 * Become the scoped server: compute its command line from what is
 * configured now, then replace this process with it (`execve`), or, where
 * that cannot be done, run it as a child and pass its exit code on.
 *
 * @param config The resolved configuration.
 * @returns The exit code (only when the server ran as a child, or could not start).
 */
export async function startScoped(config: HostConfig): Promise<number> {
  const line = await scopedCommand(config);
  const libc = findLibc();
  const canExec = libc !== null &&
    Deno.permissions.querySync({ name: "ffi", path: libc }).state === "granted";
  let why = "";
  if (canExec) {
    why = execProcess(libc, line.command, line.args, Deno.env.toObject());
  }
  if (Deno.permissions.querySync({ name: "run", command: line.command }).state === "granted") {
    return await runInherited(line);
  }
  const err = new TextEncoder().encode(
    `toolhost: cannot start the server: ${
      why || "this process may neither load libc (--allow-ffi) nor run Deno (--allow-run)"
    }\n`,
  );
  Deno.stderr.writeSync(err);
  return 1;
}

/**
 * V8 settings for the served process (all its isolates: the host and each
 * tool worker): a young generation of at most 2 MB per semi-space (V8 lets
 * it grow to 16 MB per isolate), and `gc()` for the tool workers, which
 * collect their garbage after each long call (`tool_worker.ts`). Measured
 * with `bench/python_bench.ts` (peak RSS over the whole run) and
 * `bench/read_file_compare.ts` (mean ratio to the bare server, 8 runs each,
 * alternated): V8's defaults 374-382 MB; the semi-space cap 292-312 MB,
 * 1.35x; with `--optimize-for-size` too 199-211 MB but 1.60-1.65x (it slows
 * the host's own code, the SDK's parsing and checking of each message); with
 * a lower `--heap-growing-percent` (50-100) 237-255 MB but 1.42-1.50x (more
 * full collections on the host's thread); with the collections after long
 * calls 239-258 MB and 1.33-1.41x.
 */
export const V8_FLAGS = "--v8-flags=--max-semi-space-size=2,--expose-gc";

/**
 * The `.mcp.json` entry that starts the sandboxed server from any directory.
 *
 * @param line The scoped command line.
 * @returns `{"mcpServers": {"toolhost": {command, args}}}`.
 */
export function mcpConfig(line: CommandLine): { mcpServers: { toolhost: CommandLine } } {
  return { mcpServers: { toolhost: { command: line.command, args: line.args } } };
}

/**
 * Quote a command line for a POSIX shell.
 *
 * @param line The command line.
 * @returns One shell-safe string.
 */
export function shellQuote(line: CommandLine): string {
  return [line.command, ...line.args]
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(" ");
}

/**
 * Run a command line with stdio inherited, passing signals through, and
 * return its exit code.
 *
 * @param line The command line.
 * @returns The child's exit code.
 */
export async function runInherited(line: CommandLine): Promise<number> {
  const child = new Deno.Command(line.command, {
    args: line.args,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  const handlers: Array<[Deno.Signal, () => void]> = [
    ["SIGINT", forward("SIGINT")],
    ["SIGTERM", forward("SIGTERM")],
    ["SIGHUP", forward("SIGHUP")],
  ];
  for (const [signal, handler] of handlers) Deno.addSignalListener(signal, handler);
  try {
    const status = await child.status;
    return status.signal ? 128 + signalNumber(status.signal) : status.code;
  } finally {
    for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
  }
}

function signalNumber(signal: Deno.Signal): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 1;
}

/**
 * The launcher as a program: `deno run <launcherFlags()> host/launcher.ts
 * --root DIR [--config FILE] [--ripgrep …] [--unprotect GLOB]…`.
 *
 * @param argv Its arguments.
 * @returns The exit code, when it did not become the server.
 */
export async function launchMain(argv: readonly string[]): Promise<number> {
  const say = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
  let overrides: ConfigOverrides;
  try {
    const { values } = parseArgs({ args: [...argv], options: SERVE_OPTIONS, strict: true });
    overrides = overridesFrom(values);
  } catch (error) {
    say(`toolhost: ${(error as Error).message}`);
    return 2;
  }
  try {
    return await startScoped(await loadConfig({ ...overrides, createStateDir: false }));
  } catch (error) {
    say(`toolhost: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

/** The tool assets' paths and, where they are symlinks (node_modules), their real paths. */
export async function assetPaths(): Promise<string[]> {
  const paths: string[] = [];
  for (const url of TOOL_ASSETS) {
    const path = fromFileUrl(url);
    paths.push(path);
    try {
      const real = await Deno.realPath(path);
      if (real !== path) paths.push(real);
    } catch {
      // missing until the npm packages are installed; the tool says so when used
    }
  }
  return paths;
}

if (import.meta.main) Deno.exit(await launchMain(Deno.args));
