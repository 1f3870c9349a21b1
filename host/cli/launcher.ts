/**
 * The launcher: the command line that serves a project with the narrowest
 * permissions, computed from what is configured *at each start*.
 *
 * `bin/toolhost start` (what `mcp-config` prints) runs this module as a
 * program, with the Deno it found. It reads the configuration, `.mcp.json`
 * and the environment the MCP client gave it (so `EFFERENT_COPY_ENABLE` set
 * in the client's `env` counts), finds ripgrep, libc and the configured
 * servers, and then replaces itself (`execve`) with `deno run <scoped flags>
 * mod.ts serve`: one process, the client's own, with exactly the
 * permissions what is configured now needs.
 * The launcher itself may read anywhere and the environment, and load libc;
 * it never connects or serves, runs no tool code, and writes only the
 * launch record `bin/toolhost start` asks for (`launch_record.ts`).
 *
 * The command line itself is computed in `scoped_command.ts`; a child, when
 * `execve` cannot be used, runs through `run_child.ts`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { findLibc } from "../../security/landlock.ts";
import { type ConfigOverrides, type HostConfig, loadConfig } from "../config/mod.ts";
import { LAUNCH_ENV, launcherValue } from "../launch_status.ts";
import { execProcess } from "./exec.ts";
import {
  type LaunchRecording,
  servedEnv,
  watchListings,
  writeLaunchRecord,
} from "./launch_record.ts";
import { runInherited } from "./run_child.ts";
import { isPermissionError, scopedCommand, staleFlagsLine } from "./scoped_command.ts";
import { overridesFrom, SERVE_OPTIONS } from "./serve_options.ts";

export { V8_FLAGS } from "./scoped_command.ts";

/**
 * Become the scoped server: compute its command line from what is
 * configured now, then replace this process with it (`execve`), or, where
 * that cannot be done, run it as a child and pass its exit code on.
 *
 * @param config The resolved configuration.
 * @param recording What the launcher noted, when `bin/toolhost start` asked for a launch record
 *   (`launch_record.ts`): it is written just before `execve`.
 * @returns The exit code (only when the server ran as a child, or could not start).
 */
export async function startScoped(
  config: HostConfig,
  recording?: LaunchRecording,
): Promise<number> {
  const line = await scopedCommand(config);
  const libc = findLibc();
  const canExec = libc !== null &&
    Deno.permissions.querySync({ name: "ffi", path: libc }).state === "granted";
  let why = "";
  if (canExec) {
    const notRecorded = writeLaunchRecord(line, recording);
    why = execProcess(libc, line.command, line.args, {
      ...servedEnv(Deno.env.toObject()),
      ...line.env,
      [LAUNCH_ENV]: launcherValue(notRecorded),
    });
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
 * The launcher as a program: `deno run --allow-read --allow-env
 * --allow-ffi=<libc> --no-prompt host/cli/launcher.ts --root DIR [--config
 * FILE] [--ripgrep …] [--unprotect GLOB]…` (as `bin/toolhost start` runs it).
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
  const recording = watchListings(argv);
  try {
    return await startScoped(
      await loadConfig({ ...overrides, createStateDir: false, scan: false }),
      recording,
    );
  } catch (error) {
    if (isPermissionError(error)) say(staleFlagsLine(error));
    else say(`toolhost: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

if (import.meta.main) Deno.exit(await launchMain(Deno.args));
