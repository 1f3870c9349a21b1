/**
 * What `toolhost mcp-config` and `toolhost flags` print: the `.mcp.json`
 * entry that starts toolhost, and a command line quoted for a shell.
 *
 * The entry runs `bin/toolhost start` with the roots: no Deno path, no
 * dependency versions and no Deno flags, so it outlives npx's cache and
 * dependency updates (the launcher computes the flags at every start).
 *
 * @module
 */

import * as posix from "node:path/posix";
import { fileURLToPath as fromFileUrl } from "node:url";
import type { ConfigOverrides, HostConfig } from "../config/mod.ts";
import { type CommandLine, compiledStart, isCompiled, TOOLHOST_BIN } from "./scoped_command.ts";

export { TOOLHOST_BIN } from "./scoped_command.ts";

/** How {@linkcode launchCommand} writes the entry. */
export interface LaunchCommandOptions {
  /**
   * An entry a team can commit: the command is `toolhost` (on each member's
   * PATH, from `toolhost install`) and the roots and config file are
   * relative to `cwd`; an MCP client resolves them against its own working
   * directory (Claude Code's is the project). Default false: absolute paths.
   */
  team?: boolean;
  /** What relative paths are relative to (default: the current directory). */
  cwd?: string;
}

/**
 * The command `mcp-config` prints: `toolhost start` with the roots and the
 * options given now. It finds Deno and computes the scoped server's flags
 * each time it starts.
 *
 * @param config The resolved configuration (roots).
 * @param overrides The options as given (config file, ripgrep, unprotect).
 * @param options Whether the entry is for a team to commit.
 * @returns The program and arguments.
 */
export function launchCommand(
  config: HostConfig,
  overrides: ConfigOverrides,
  options: LaunchCommandOptions = {},
): CommandLine {
  if (isCompiled()) return compiledStart(config);
  const cwd = realOrSelf(options.cwd ?? Deno.cwd());
  const where = (path: string) =>
    options.team ? posix.relative(cwd, posix.resolve(cwd, path)) || "." : posix.resolve(cwd, path);
  const args = ["start"];
  for (const root of config.policy.roots) args.push("--root", where(root));
  if (overrides.configFile) args.push("--config", where(overrides.configFile));
  if (overrides.ripgrep) args.push(`--ripgrep=${overrides.ripgrep}`);
  for (const glob of overrides.unprotect ?? []) args.push(`--unprotect=${glob}`);
  if (overrides.http?.http !== undefined) args.push(`--http=${overrides.http.http}`);
  if (overrides.http?.allowRemote) args.push("--allow-remote");
  if (overrides.hooks !== undefined) args.push(`--hooks=${overrides.hooks}`);
  return { command: options.team ? "toolhost" : fromFileUrl(TOOLHOST_BIN), args };
}

/** A directory's real path (the roots are real paths), or itself when it cannot be resolved. */
function realOrSelf(dir: string): string {
  try {
    return Deno.realPathSync(dir);
  } catch {
    return dir; // Safe: only relative paths printed for a team depend on it, and they still resolve.
  }
}

/** The `.mcp.json` entry that starts toolhost. */
export interface McpConfig {
  /** The one server: toolhost. */
  mcpServers: { toolhost: CommandLine };
}

/**
 * The `.mcp.json` entry that starts the sandboxed server.
 *
 * @param line The command line (from {@linkcode launchCommand}).
 * @returns `{"mcpServers": {"toolhost": {command, args}}}`.
 */
export function mcpConfig(line: CommandLine): McpConfig {
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

/** The `.mcp.json` entry of a server that serves over HTTP. */
export interface McpHttpConfig {
  /** The one server: toolhost at its URL, with its token. */
  mcpServers: {
    toolhost: { type: "http"; url: string; headers: Record<string, string> };
  };
}

/**
 * The `.mcp.json` entry that reaches a toolhost serving over HTTP.
 *
 * @param url The endpoint's URL.
 * @param token The bearer token.
 * @returns `{"mcpServers": {"toolhost": {type: "http", url, headers}}}`.
 */
export function mcpHttpConfig(url: string, token: string): McpHttpConfig {
  return {
    mcpServers: {
      toolhost: { type: "http", url, headers: { Authorization: `Bearer ${token}` } },
    },
  };
}
