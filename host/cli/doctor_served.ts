/**
 * The doctor's probe of the served launch. The other probes run in the
 * doctor's process, whose permissions may be broader than the served
 * process's: this one starts the server exactly as `mcp-config` prints it,
 * and checks that it confines its tool workers and uses ripgrep as found
 * there (it once could not find libc, and once could not see ripgrep, under
 * its own permissions, so each was off there alone).
 *
 * @module
 */

import type { LandlockStatus } from "../../security/landlock.ts";
import type { ConfigOverrides, HostConfig } from "../config/mod.ts";
import type { RipgrepStatus } from "../workers/mod.ts";
import type { ProbeResult } from "./doctor_report.ts";
import type { SandboxStatus } from "../../tools/sandbox.ts";
import { launchCommand } from "./mcp_config.ts";
import type { CommandLine } from "./scoped_command.ts";

/** How long the scoped server may take to say what confines it. */
const SERVED_STATUS_MS = 30_000;

/** What the doctor's own probes found, for the served process to match. */
export interface FoundHere {
  /** Whether Landlock confined the doctor's tool worker. */
  landlock: LandlockStatus;
  /** Whether ripgrep ran in the doctor's tool worker. */
  ripgrep: RipgrepStatus;
  /** What the sandbox for programs is in the doctor's process. */
  sandbox: SandboxStatus;
}

/**
 * Start the server as `mcp-config` prints it, at once: it runs in a process
 * of its own while the probes in this one run, and {@linkcode servedProbe}
 * compares what it said with what they found.
 *
 * @param config The resolved configuration.
 * @param overrides The command-line options it came from.
 * @returns The line it said when it began to serve, or why it did not.
 */
export function startServed(
  config: HostConfig,
  overrides: ConfigOverrides,
): Promise<string | Error> {
  return servedStatus(launchCommand(config, overrides)).catch((error) =>
    error instanceof Error ? error : new Error(String(error))
  );
}

/**
 * Compare what the server started as `mcp-config` prints it said it uses
 * with what was found here.
 *
 * @param said What {@linkcode startServed} got: its start-up line, or why there was none.
 * @param here What the probes in this process found.
 * @returns The probe.
 */
export function servedProbe(said: string | Error, here: FoundHere): ProbeResult {
  const name = "served process: the server mcp-config prints confines and searches as probed here";
  if (said instanceof Error) {
    return { name, ok: false, detail: `could not start the server: ${String(said)}` };
  }
  const line = said;
  const problems: string[] = [];
  if (line.includes("tool workers confined by Landlock") !== here.landlock.active) {
    problems.push(`Landlock ${here.landlock.active ? "active" : "not active"} here`);
  }
  if (/ripgrep [^;:]* in use \(/.test(line) !== here.ripgrep.active) {
    problems.push(`ripgrep ${here.ripgrep.active ? "in use" : "not in use"} here`);
  }
  const confined = here.sandbox.mode === "bwrap";
  if (line.includes("confined by bubblewrap") !== confined) {
    problems.push(`the sandbox ${confined ? "confines programs" : "is not in effect"} here`);
  }
  const ok = problems.length === 0;
  return { name, ok, detail: ok ? line : `${problems.join(", ")}, but it said: ${line}` };
}

/**
 * Start a server, read the line it says on stderr when it begins to serve,
 * and stop it.
 *
 * @param command How to start it.
 * @returns The line, from "serving" on.
 * @throws {Error} When it stops or stays silent for 30 s without saying it.
 */
export async function servedStatus(command: CommandLine): Promise<string> {
  const child = new Deno.Command(command.command, {
    args: command.args,
    cwd: "/",
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), SERVED_STATUS_MS);
  let said = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!/toolhost: serving[^\n]*\n/.test(said)) {
      const { value, done } = await reader.read();
      if (done) break;
      said += value;
    }
  } finally {
    await child.stdin.close();
    await reader.cancel();
    await child.status;
    clearTimeout(timer);
  }
  const line = said.match(/toolhost: (serving[^\n]*)/)?.[1];
  if (line === undefined) throw new Error(`it said: ${said.trim().slice(0, 500) || "nothing"}`);
  return line;
}
