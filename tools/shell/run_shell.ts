/**
 * `run_shell` (seed 001's shell runner, for a POSIX shell): one command in
 * the sandbox, which the kernel confines — the roots read-write less the
 * protected paths, the system read-only, no network, no secrets, nothing
 * else of the host — so no spelling of the command matters.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../../security/errors.ts";
import { defineTool, structured, type ToolResult } from "../tool.ts";
import { sandboxOf, type SandboxResult } from "../sandbox.ts";

/** Variable names a call may set. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The longest command accepted. */
export const MAX_COMMAND_CHARS = 100_000;

/** Run a shell command in the sandbox. */
export const runShell = defineTool({
  name: "run_shell",
  description:
    "Run a bash command (tests, builds) in a sandbox: roots writable, system read-only, no network, nothing else of the machine.",
  input: z.object({
    command: z.string().min(1).max(MAX_COMMAND_CHARS),
    cwd: z.string().max(4096).optional().describe("Default: the primary root"),
    timeout_s: z.number().int().min(1).optional().describe("Default 60"),
    env: z.record(z.string(), z.string().max(32_768)).optional(),
  }),
  output: z.object({
    exit_code: z.number().nullable(),
    stdout: z.string(),
    stderr: z.string(),
    timed_out: z.boolean(),
    cancelled: z.boolean(),
    duration_ms: z.number(),
    set_aside: z.array(z.string()).describe(
      "What it wrote that was not applied (protected paths), moved into .toolhost/set-aside/",
    ),
    kept: z.array(z.string()).describe("What it deleted that was kept (protected or hidden)"),
  }),
  annotations: { title: "Run shell command", readOnlyHint: false, destructiveHint: true },
  async run({ command, cwd, timeout_s, env }, ctx) {
    const bad = Object.keys(env ?? {}).find((name) => !ENV_NAME.test(name));
    if (bad !== undefined) {
      throw new ToolError("invalid_argument", `${JSON.stringify(bad)} is not a variable name`);
    }
    const sandbox = sandboxOf(ctx);
    const limit = timeout_s ?? sandbox.status.timeoutS.default;
    if (limit > sandbox.status.timeoutS.max) {
      throw new ToolError(
        "invalid_argument",
        `timeout_s ${limit} is over the longest allowed, ${sandbox.status.timeoutS.max} s (shell.maxTimeoutS)`,
      );
    }
    let reports = 0;
    const result = await sandbox.run({
      argv: [sandbox.status.shell, "-c", command],
      ...(cwd !== undefined ? { cwd } : {}),
      access: "write",
      timeoutMs: limit * 1000,
      signal: ctx.signal,
      tool: "run_shell",
      script: command,
      ...(env !== undefined ? { env } : {}),
      onOutput: (tail) => ctx.progress(++reports, undefined, tail),
    });
    return rendered(result, limit);
  },
});

/** The seed's shape (`STDOUT:`, `STDERR:`, `EXIT CODE:`), with what stopped it, and the data. */
function rendered(result: SandboxResult, limit: number): ToolResult {
  const lines = [`STDOUT:\n${result.stdout}`, `STDERR:\n${result.stderr}`];
  lines.push(`EXIT CODE: ${exitPhrase(result, limit)}`);
  if (result.limited) lines.push(`LIMIT: ${result.limited}`);
  for (const moved of result.setAside) lines.push(`SET ASIDE: ${moved}`);
  for (const kept of result.kept) lines.push(`KEPT: ${kept}`);
  return structured(lines.join("\n"), {
    exit_code: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    timed_out: result.timedOut,
    cancelled: result.cancelled,
    duration_ms: result.durationMs,
    set_aside: [...result.setAside],
    kept: [...result.kept],
  });
}

/** The exit code, or what ended the command instead. */
function exitPhrase(result: SandboxResult, limit: number): string {
  if (result.timedOut) return `timeout (stopped after ${limit} s, with every process it started)`;
  if (result.cancelled) return "cancelled (stopped, with every process it started)";
  if (result.exitCode !== null) return String(result.exitCode);
  return `none (ended by ${result.signal})`;
}
