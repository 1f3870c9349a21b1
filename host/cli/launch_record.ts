/**
 * The launch record: what the launcher computed for one start, and
 * everything it read to compute it, so that `bin/toolhost start` can run
 * the same command line next time without starting the launcher — as long
 * as nothing it read has changed.
 *
 * The launcher's line is a function of its code, its Deno, arguments,
 * folder, user and groups (`bin/toolhost start` names these in a key), the
 * variables it read and the paths it looked at. The script runs the
 * launcher with Deno's permission audit on
 * (`DENO_AUDIT_PERMISSIONS`): every path and variable the launcher's code
 * asks for is written to that log as it asks. The record keeps each of
 * them with its state — a variable's value (or that it is unset); what a
 * path leads to (device, inode, size, times and mode; of a folder not
 * listed, only its identity) and what the path itself is (a link or not),
 * or that it is absent — and the command line. It is dated the second
 * before the launcher started. A later start with the same key compares
 * them all (`stat` for the paths, the variables in the shell) and checks
 * that no file of toolhost's code changed since the record's date; any
 * difference and the launcher runs as before.
 *
 * Nothing is recorded when the audit did not reach its end or names what a
 * record cannot compare (a permission other than a path, a variable or the
 * user), or when a path changed, or was made or removed, within a second of
 * the launcher's start (a later change in that second would not show in
 * `stat`'s seconds). The records live in the checkout's `node_modules/`,
 * toolhost's code as much as the modules beside them: nothing inside a root
 * can write there unless a root holds the checkout (which is protected).
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath as fromFileUrl } from "node:url";
import { quote, statLines } from "./_launch_stamps.ts";
import type { ScopedLine } from "./scoped_command.ts";

/** The variables `bin/toolhost start` sets for a launcher that should write a record. */
export const RECORD_ENV = Object.freeze({
  /** Where to write the record. */
  record: "TOOLHOST_LAUNCH_RECORD",
  /** The start's key, as the script made it (see {@linkcode launchKey}). */
  key: "TOOLHOST_LAUNCH_KEY",
  /** Deno's own: the file its permission audit goes to. */
  audit: "DENO_AUDIT_PERMISSIONS",
});

/** Read last: its row in the audit says every row before it was written. */
export const AUDIT_END = "TOOLHOST_LAUNCH_AUDIT_END";

/** An audit this old belongs to no running launcher (each takes well under a second). */
const STALE_AUDIT_MS = 60 * 60 * 1000;

/** Records kept at most: the oldest go (each root and set of arguments makes one). */
const MOST_RECORDS = 64;

/** A variable name the shell can expand safely. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the launcher read, from the audit. */
export interface Inputs {
  /** Every path it asked for. */
  paths: Set<string>;
  /** The folders among them it listed (see {@linkcode watchListings}). */
  listed: Set<string>;
  /** The variables it asked for. */
  names: Set<string>;
}

/**
 * The environment the served process gets: the launcher's, without the
 * variables that asked it for a record.
 *
 * @param env The launcher's environment.
 * @returns A copy without {@linkcode RECORD_ENV}'s variables (the audit's only when the script set it).
 */
export function servedEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const served = { ...env };
  if (served[RECORD_ENV.record] !== undefined) delete served[RECORD_ENV.audit];
  delete served[RECORD_ENV.record];
  delete served[RECORD_ENV.key];
  return served;
}

/**
 * The key `bin/toolhost start` makes for a start (lines: a version, the
 * Deno it runs, the working directory, `uid:gid:groups` as the process's
 * status gives them, then each argument).
 *
 * @param deno The Deno path as the script found it.
 * @param args The launcher's arguments.
 * @returns The key, or `null` when an argument holds a line break (it would be ambiguous).
 */
export function launchKey(deno: string, args: readonly string[]): string | null {
  if (args.some((arg) => arg.includes("\n"))) return null;
  // The groups as the process's status lists them (Deno reads /proc/self only with --allow-all).
  const user = `${Deno.uid()}:${Deno.gid()}:${process.getgroups?.().join(" ") ?? ""}`;
  return ["toolhost-launch 1", deno, Deno.cwd(), user, ...args].join("\n");
}

/** What the launcher keeps while it computes, for {@linkcode writeLaunchRecord}. */
export interface LaunchRecording {
  /** The launcher's arguments. */
  args: readonly string[];
  /** The folders it listed, from {@linkcode watchListings}. */
  listed: Set<string>;
}

/**
 * Start recording, when `bin/toolhost start` asked for a record: from now
 * on, each folder listed through `Deno.readDir`/`Deno.readDirSync` is
 * noted, so that the record keeps its times (a file made in it then shows);
 * the audit names a folder without saying that it was listed. The
 * launcher's modules list folders only through these (a test keeps it so).
 *
 * @param args The launcher's arguments.
 * @returns The recording, or `undefined` when no record was asked for.
 */
export function watchListings(args: readonly string[]): LaunchRecording | undefined {
  if (!Deno.env.get(RECORD_ENV.record)) return undefined;
  const listed = new Set<string>();
  const note = (path: string | URL) => {
    const text = path instanceof URL ? fromFileUrl(path) : path;
    listed.add(isAbsolute(text) ? text : resolve(text));
  };
  const { readDir, readDirSync } = Deno;
  Deno.readDir = (path) => (note(path), readDir(path));
  Deno.readDirSync = (path) => (note(path), readDirSync(path));
  return { args, listed };
}

/**
 * Write the launch record for this start, when the script asked for one
 * and everything the launcher read can be compared later. Whatever
 * happens, the audit file is removed.
 *
 * @param line The command line the launcher computed.
 * @param recording What {@linkcode watchListings} kept (`undefined`: no record was asked for).
 * @returns `null` when the record was written, else why not.
 */
export function writeLaunchRecord(
  line: ScopedLine,
  recording: LaunchRecording | undefined,
): string | null {
  const recordPath = Deno.env.get(RECORD_ENV.record);
  const key = Deno.env.get(RECORD_ENV.key);
  const auditPath = Deno.env.get(RECORD_ENV.audit);
  if (!recording || !recordPath || !key || !auditPath || Deno.build.os !== "linux") {
    return "bin/toolhost start did not ask for one (its folder in node_modules cannot be written)";
  }
  Deno.env.get(AUDIT_END);
  let made: { text: string } | { why: string };
  try {
    made = recordOf(line, recording, key, Deno.readTextFileSync(auditPath));
  } catch (error) {
    made = { why: `Deno's permission audit could not be read (${(error as Error).message})` };
  }
  removeQuietly(auditPath);
  if ("why" in made) {
    // The record there, if any, did not hold (the script would not have run the launcher).
    removeQuietly(recordPath);
    return made.why;
  }
  try {
    const partial = `${recordPath}.partial.${Deno.pid}`;
    Deno.writeTextFileSync(partial, made.text);
    // Dated before the launcher started: a file of toolhost's code changed while it ran is newer
    // than the record (the script's `find -cnewer`), and the next start runs the launcher again.
    const before = settledSecond();
    Deno.utimeSync(partial, before, before);
    Deno.renameSync(partial, recordPath);
  } catch (error) {
    return `it could not be written (${(error as Error).message})`;
  }
  pruneRecords(recordPath.slice(0, recordPath.lastIndexOf("/")));
  return null;
}

/** The record's text from the audit, or why there is none. */
function recordOf(
  line: ScopedLine,
  recording: LaunchRecording,
  key: string,
  audit: string,
): { text: string } | { why: string } {
  const inputs = auditedInputs(audit);
  if (inputs === null) {
    return { why: "Deno's permission audit names what a record cannot compare, or was cut short" };
  }
  const deno = key.split("\n")[1] ?? "";
  if (launchKey(deno, recording.args) !== key) {
    return { why: "the script's key does not name this start" };
  }
  for (const path of recording.listed) inputs.listed.add(path);
  inputs.paths.add(deno).add(line.command);
  const text = recordText(key, line, inputs);
  return text === null
    ? { why: "a path it read changed within its first second, or a value holds a line break" }
    : { text };
}

/** The second before the launcher's start: what changed at or after it is too recent to record. */
function settledSecond(): number {
  return Math.floor(performance.timeOrigin / 1000) - 1;
}

/** Remove a file that may not be there. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Not there (or not ours to remove): nothing to clean.
  }
}

/**
 * The paths and variables a permission audit names up to the row of
 * {@linkcode AUDIT_END}.
 *
 * @param audit The audit's text (one JSON object per line, as Deno writes them).
 * @returns What was read, or `null` when the end is missing or a row names something else (the
 *   network, a program, a library, a whole environment) that a record could not compare.
 */
export function auditedInputs(audit: string): Inputs | null {
  const inputs: Inputs = { paths: new Set(), listed: new Set(), names: new Set() };
  for (const row of audit.split("\n")) {
    if (row === "") continue;
    const { permission, value } = JSON.parse(row) as { permission: string; value: unknown };
    if (permission === "env" && value === AUDIT_END) return inputs;
    if (typeof value !== "string" || value.includes("\n")) return null;
    if (permission === "read" || permission === "write") inputs.paths.add(value);
    else if (permission === "env" && NAME.test(value)) inputs.names.add(value);
    else if (!(permission === "sys" && (value === "uid" || value === "gid"))) return null;
  }
  // The end was never written: what came before it may be incomplete.
  return null;
}

/** The record as the script sources it, or `null` when a path changed too recently. */
function recordText(key: string, line: ScopedLine, inputs: Inputs): string | null {
  const own: readonly string[] = Object.values(RECORD_ENV);
  const names = [...inputs.names].filter((name) => !own.includes(name)).sort();
  const values = names.map((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? "" : `=${value}`;
  });
  if (values.some((value) => value.includes("\n"))) return null;
  if (Object.keys(line.env).some((name) => !NAME.test(name))) return null;
  const stats = statLines(inputs.paths, inputs.listed, settledSecond());
  if (stats === null) return null;
  const exports = Object.entries(line.env).map(([name, value]) =>
    `  export ${name}=${quote(value)}`
  );
  return [
    "# toolhost's launch record: written by host/cli/launch_record.ts, read by bin/toolhost start.",
    `rec_key=${quote(key)}`,
    `rec_env_names=${quote(names.join(" "))}`,
    `rec_env=${quote(values.join("\n"))}`,
    `rec_stats=${quote(stats.expected)}`,
    "launch_stats() {",
    // stat fails for a path that is absent, after printing the others (the script runs set -e).
    ...stats.commands.map((command) => `  ${command} 2>/dev/null || true`),
    "}",
    "launch_exec() {",
    ...exports,
    `  exec ${[line.command, ...line.args].map(quote).join(" ")}`,
    "}",
    "",
  ].join("\n");
}

/**
 * Keep the newest {@linkcode MOST_RECORDS} records in their folder, and no
 * audit older than {@linkcode STALE_AUDIT_MS} (a launcher that ended before
 * removing its own). A file another start removed meanwhile is passed over.
 */
function pruneRecords(dir: string): void {
  const records: { path: string; mtime: number }[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.isFile) continue;
    const path = `${dir}/${entry.name}`;
    let mtime: number;
    try {
      mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
    } catch {
      continue;
    }
    if (!entry.name.startsWith("audit.")) records.push({ path, mtime });
    else if (Date.now() - mtime > STALE_AUDIT_MS) removeQuietly(path);
  }
  records.sort((a, b) => b.mtime - a.mtime);
  for (const { path } of records.slice(MOST_RECORDS)) removeQuietly(path);
}
