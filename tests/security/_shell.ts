/**
 * Helpers for the tests of run_shell's sandbox.
 */

import { canRun } from "../_helpers.ts";
import type { LaunchedHost } from "../_mcp.ts";

/** What one run_shell call gave. */
export interface ShellOutput {
  /** The text the model reads. */
  text: string;
  /** Its structured content. */
  data: Record<string, unknown>;
  /** Whether it was an error result. */
  isError: boolean;
}

/**
 * Whether bwrap is missing on this machine (the sandbox's tests are skipped, saying so; under
 * `CI=true` they run, and fail without it, as `canRun` has it).
 *
 * @returns True when missing.
 */
export function bwrapMissing(): boolean {
  return !canRun("bwrap");
}

/**
 * Run a command through run_shell.
 *
 * @param host The launched host.
 * @param command The command.
 * @param extra More arguments (timeout_s, cwd, env).
 * @returns Its text and data.
 */
export async function shell(
  host: LaunchedHost,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<ShellOutput> {
  const result = await host.call("run_shell", { command, ...extra });
  const text = result.content.map((block) => block.type === "text" ? block.text : "").join("\n");
  return { text, data: result.structuredContent ?? {}, isError: result.isError === true };
}

/**
 * Whether a path exists on the host.
 *
 * @param path The path.
 * @returns True when it does.
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The host's processes whose command line contains some text.
 *
 * @param text The text.
 * @returns Their PIDs.
 */
export async function hostProcesses(text: string): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const line = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (line.replaceAll("\0", " ").includes(text)) found.push(Number(entry.name));
  }
  return found;
}

/**
 * Wait until a condition holds (events and state, never a time bound), failing after a
 * generous outer limit.
 *
 * @param holds The condition.
 * @param what What is waited for, for the failure.
 */
export async function waitUntil(holds: () => Promise<boolean>, what: string): Promise<void> {
  const giveUp = Date.now() + 60_000;
  while (!(await holds())) {
    if (Date.now() > giveUp) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Whether a command still running has written a file: its writes wait in its overlay until it
 * ends (in the user's cache: `toolhost/overlay/<roots>/<run>/<root>/upper/`, the cache the
 * launched host has, `$HOME/.cache`), so the file is looked for there as well as in the root.
 *
 * @param root The root the command writes.
 * @param name The file's path relative to the root.
 * @returns True when it is in the root or in a running command's overlay.
 */
export async function commandWrote(root: string, name: string): Promise<boolean> {
  if (await exists(`${root}/${name}`)) return true;
  const base = `${Deno.env.get("HOME")}/.cache/toolhost/overlay`;
  const entries = async (dir: string) => {
    try {
      return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name);
    } catch {
      return []; // gone meanwhile (a run that ended): nothing there
    }
  };
  for (const roots of await entries(base)) {
    for (const run of await entries(`${base}/${roots}`)) {
      for (const index of await entries(`${base}/${roots}/${run}`)) {
        if (await exists(`${base}/${roots}/${run}/${index}/upper/${name}`)) return true;
      }
    }
  }
  return false;
}
