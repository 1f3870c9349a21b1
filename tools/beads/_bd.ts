/**
 * Running the real `bd` (Beads) program for the Beads tools: always through
 * the sandbox (`tools/sandbox.ts`), in the primary root, after asking the
 * sandbox whether that root has a `.beads/` directory. Nothing here reads or
 * writes `.beads/` itself: bd does, confined.
 *
 * How bd is run, from its source (github.com/steveyegge/beads, now
 * gastownhall/beads): `--json` is a persistent flag of every command
 * (cmd/bd/main.go); flags are given as `--name=value`, so a value that starts
 * with `-` stays a value, and positional arguments follow `--` (cobra stops
 * reading flags there). The environment keeps bd from leaving anything
 * running past the call, whose PID namespace dies when it ends:
 * - `BD_NO_DAEMON=true` (bd 0.x reads it through viper, internal/config/config.go):
 *   direct mode, never a daemon's socket in `.beads/` (a daemon started outside
 *   the sandbox would act for it unconfined). Unlike `--sandbox`, which in 0.x
 *   also stops the JSONL export and import, and unlike `--no-daemon`, which 1.x
 *   no longer accepts.
 * - `BEADS_AUTO_START_DAEMON=false` (0.x): never start a daemon.
 * - `BEADS_DOLT_AUTO_START=0` (1.x, internal/doltserver): never start a Dolt
 *   server in here. One started in the sandbox would die with the call and,
 *   as bd's own comments say, overwrite the port file of the user's server.
 *   An embedded-mode workspace needs no server; a server-mode one needs the
 *   user's server, which the sandbox reaches only with `shell.network`.
 *
 * @module
 */

import { type Sandbox, sandboxOf, type SandboxResult } from "../sandbox.ts";
import { type ErrorCode, type ToolContext, ToolError } from "../tool.ts";

/** The environment bd runs with, besides the sandbox's own (see the module doc). */
export const BD_ENV: Readonly<Record<string, string>> = Object.freeze({
  BD_NO_DAEMON: "true",
  BEADS_AUTO_START_DAEMON: "false",
  BEADS_DOLT_AUTO_START: "0",
});

/** How long the workspace check may run. */
const PROBE_TIMEOUT_MS = 10_000;

/** The most JSON bd may print that is still read whole (beyond it the middle would be elided). */
export const BD_MAX_JSON_BYTES = 4 * 1024 * 1024;

/** The longest message of bd's own that an error carries. */
const MAX_MESSAGE_CHARS = 1000;

/** One bd command, as a Beads tool asks for it. */
export interface BdCommand {
  /** The tool that runs it, for the session's subprocess log. */
  readonly tool: string;
  /** bd's arguments (the subcommand first, `--json` among them). */
  readonly args: readonly string[];
}

/**
 * The primary root, once the sandbox says it has a `.beads/` directory.
 *
 * @param ctx The call's context.
 * @param sandbox The sandbox.
 * @param tool The tool that asks.
 * @returns The primary root (absolute).
 * @throws {ToolError} `not_found` when the primary root has no `.beads/` directory.
 */
export async function beadsWorkspace(
  ctx: ToolContext,
  sandbox: Sandbox,
  tool: string,
): Promise<string> {
  const root = ctx.policy.roots[0]!;
  const probe = await sandbox.run({
    argv: ["test", "-d", ".beads"],
    cwd: root,
    access: "read",
    timeoutMs: PROBE_TIMEOUT_MS,
    signal: ctx.signal,
    tool,
  });
  if (probe.exitCode === 0) return root;
  if (probe.exitCode === 1) {
    throw new ToolError(
      "not_found",
      `no active workspace to run beads tools (no .beads/ directory in "${root}")`,
    );
  }
  const said = bdMessage(probe.stderr);
  throw stopped("test -d .beads", probe) ?? new ToolError(
    "internal_error",
    `Cannot check "${root}" for .beads/: the check exited with ${probe.exitCode}${
      said ? ` (${said})` : ""
    }`,
  );
}

/**
 * Run one bd command in the primary root's Beads workspace and read its JSON.
 *
 * @param ctx The call's context.
 * @param command The tool and bd's arguments.
 * @returns What bd printed, parsed (an envelope's `data` when bd wraps it; null for nothing).
 * @throws {ToolError} `not_found` (no workspace, or bd found no such bead),
 *   `invalid_argument` (bd refused a value), `timeout`, `cancelled`,
 *   `too_large`, `upstream_error` (bd failed otherwise or printed no JSON).
 */
export async function runBd(ctx: ToolContext, command: BdCommand): Promise<unknown> {
  const sandbox = sandboxOf(ctx);
  const root = await beadsWorkspace(ctx, sandbox, command.tool);
  const result = await sandbox.run({
    argv: ["bd", ...command.args],
    cwd: root,
    access: "write",
    // A command's default time limit, as for shell commands (`shell.timeoutS`).
    timeoutMs: sandbox.status.timeoutS.default * 1000,
    signal: ctx.signal,
    tool: command.tool,
    env: BD_ENV,
    maxOutputBytes: BD_MAX_JSON_BYTES,
  });
  const name = `bd ${command.args[0] ?? ""}`.trim();
  const failure = stopped(name, result) ?? exitFailure(name, result);
  if (failure) throw failure;
  return parseOutput(name, result);
}

/** A timeout, cancellation or sandbox limit, as the error a model sees. */
function stopped(name: string, result: SandboxResult): ToolError | undefined {
  if (result.timedOut) {
    const seconds = Math.round(result.durationMs / 1000);
    return new ToolError("timeout", `${name} was stopped at its time limit, after ${seconds} s`);
  }
  if (result.cancelled) return new ToolError("cancelled", `${name} was cancelled`);
  if (result.limited !== null) {
    return new ToolError("upstream_error", `${name} was stopped: ${result.limited}`);
  }
  return undefined;
}

/** bd's own failure (a non-zero exit), with its message and a code to act on. */
function exitFailure(name: string, result: SandboxResult): ToolError | undefined {
  if (result.exitCode === 0) return undefined;
  const message = bdMessage(result.stderr) || bdMessage(result.stdout) || "it printed nothing";
  const how = result.exitCode === null ? `signal ${result.signal}` : `exit ${result.exitCode}`;
  return new ToolError(codeFor(message), `${name} failed (${how}): ${message}`);
}

/** The stable code for a bd message: what the model can do about it. */
function codeFor(message: string): ErrorCode {
  if (/\bnot found\b|\bno issue found\b|\bno beads database\b/i.test(message)) return "not_found";
  if (/\binvalid\b|\bmust be\b/i.test(message)) return "invalid_argument";
  return "upstream_error";
}

/**
 * What bd said on a stream: the `error` of its JSON error object when it
 * printed one (`--json`: `{"error": "..."}`, cmd/bd/output.go), or its text,
 * bounded.
 *
 * @param stream A stream of bd's, as the sandbox kept it.
 * @returns The message, or "" when the stream is blank.
 */
export function bdMessage(stream: string): string {
  const text = stream.trim();
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) {
    const error = jsonError(text.slice(start, end + 1));
    if (error !== undefined) return bounded(error);
  }
  return bounded(text.replace(/^Error:\s*/i, ""));
}

function jsonError(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && "error" in value) {
      const error = (value as { error: unknown }).error;
      return typeof error === "string" ? error : undefined;
    }
  } catch {
    // Not JSON after all: the caller falls back to the text itself, so dropping this is safe.
  }
  return undefined;
}

function bounded(text: string): string {
  const oneLine = text.split("\n").map((line) => line.trim()).filter(Boolean).join(" | ");
  return oneLine.length > MAX_MESSAGE_CHARS
    ? `${oneLine.slice(0, MAX_MESSAGE_CHARS)}… (${
      oneLine.length - MAX_MESSAGE_CHARS
    } more characters)`
    : oneLine;
}

/** bd's JSON, parsed; an envelope (`BD_JSON_ENVELOPE=1`: `{schema_version, data}`) unwrapped. */
function parseOutput(name: string, result: SandboxResult): unknown {
  if (result.stdoutBytes > BD_MAX_JSON_BYTES) {
    throw new ToolError(
      "too_large",
      `Cannot read ${name}: it printed ${result.stdoutBytes} bytes, limit is ${BD_MAX_JSON_BYTES}`,
    );
  }
  // bd 0.x prints nothing for an update that matched no issue.
  if (result.stdout.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(result.stdout);
  } catch (error) {
    throw new ToolError(
      "upstream_error",
      `${name} printed no JSON: ${bdMessage(result.stdout) || "nothing"}`,
      { cause: error },
    );
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if ("schema_version" in record && "data" in record) return record.data;
  }
  return value;
}
