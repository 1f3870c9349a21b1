/**
 * What `toolhost mcp-config` and `toolhost flags` print: the launcher's
 * command line, the `.mcp.json` entry that runs it, and a command line
 * quoted for a shell.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { findLibc } from "../../security/landlock.ts";
import type { ConfigOverrides, HostConfig } from "../config/mod.ts";
import { type CommandLine, compiledStart, isCompiled } from "./scoped_command.ts";

/** The launcher module (`launcher.ts`): the program `mcp-config` prints. */
export const LAUNCHER: URL = new URL("./launcher.ts", import.meta.url);

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

/** The `.mcp.json` entry that starts toolhost. */
export interface McpConfig {
  /** The one server: toolhost. */
  mcpServers: { toolhost: CommandLine };
}

/**
 * The `.mcp.json` entry that starts the sandboxed server from any directory.
 *
 * @param line The scoped command line.
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
