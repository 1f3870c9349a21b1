/**
 * The sandbox contract: how a host-side tool runs a program (a shell
 * command, git, bd) confined by the kernel. The host provides it as the
 * `sandbox` service (`ctx.shared(SANDBOX_SERVICE, …)`); `host/sandbox/`
 * implements it with bubblewrap. Tools never spawn a process themselves.
 *
 * @module
 */

import type { ToolContext } from "./tool.ts";
import { ToolError } from "./tool.ts";

/** The key of the sandbox service in a host-side tool's context. */
export const SANDBOX_SERVICE = "sandbox";

/**
 * The key of the overlay marks service in a tool worker's context: libc's
 * attribute calls (`security/overlay_marks.ts`), which merging a shell
 * command's writes needs; `undefined` where the worker could not load them.
 */
export const OVERLAY_MARKS_SERVICE = "overlay_marks";

/** One program to run in the sandbox. */
export interface SandboxRequest {
  /** The program and its arguments; the program is looked up on the sandbox's PATH. */
  readonly argv: readonly string[];
  /**
   * Where it runs: absolute, or relative to the primary root (default: the
   * primary root). It must lie inside a root.
   */
  readonly cwd?: string;
  /** `write`: the roots read-write, less the protected paths; `read`: the roots read-only. */
  readonly access: "read" | "write";
  /** Stopped (its whole process tree) after this many milliseconds. */
  readonly timeoutMs: number;
  /** Stops it (its whole process tree) when aborted. */
  readonly signal: AbortSignal;
  /** Bytes kept of each stream, head and tail (default: half the reply limit). */
  readonly maxOutputBytes?: number;
  /** Told the last lines of output while it runs (at most about once a second). */
  readonly onOutput?: (tail: string) => void;
  /** The tool that runs it, for the session's subprocess log. */
  readonly tool: string;
  /** Variables added to the sandbox's environment (git's `GIT_*`, a call's `env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The command as the agent wrote it, kept verbatim in the session's `scripts/`. */
  readonly script?: string;
  /** Bytes given on standard input (default: none, a closed pipe). */
  readonly stdin?: Uint8Array;
}

/** What a program did. */
export interface SandboxResult {
  /** Its exit code; null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, when one did. */
  readonly signal: string | null;
  /** Its standard output, bounded: head and tail kept, the middle elided with a count. */
  readonly stdout: string;
  /** Its standard error, bounded the same way. */
  readonly stderr: string;
  /** Bytes it wrote to standard output in all. */
  readonly stdoutBytes: number;
  /** Bytes it wrote to standard error in all. */
  readonly stderrBytes: number;
  /** Stopped at its time limit. */
  readonly timedOut: boolean;
  /** Stopped because the call was cancelled. */
  readonly cancelled: boolean;
  /** Stopped by a limit of the sandbox (too many processes), with what it was. */
  readonly limited: string | null;
  /** Wall time, in milliseconds. */
  readonly durationMs: number;
  /** Where it ran (absolute). */
  readonly cwd: string;
  /**
   * Protected files it created where the sandbox could not mount them away
   * (a name that did not exist before it ran): moved out of the root into the
   * state directory, root-relative, each with why it is protected.
   */
  readonly setAside: readonly string[];
  /**
   * What it deleted that was not deleted: protected entries, and
   * directories that hold one (root-relative, each with why).
   */
  readonly kept: readonly string[];
}

/** Whether the sandbox runs programs, and how. */
export interface SandboxStatus {
  /** Programs run (confined, or unconfined because the user said so). */
  readonly active: boolean;
  /** `bwrap` (confined), `unconfined` (the user's `shell.unconfined`), or `off`. */
  readonly mode: "bwrap" | "unconfined" | "off";
  /** Why it is off, or what unconfined means. */
  readonly reason?: string;
  /** Programs found on the sandbox's PATH that run there, by name (git, bd), absolute. */
  readonly programs: Readonly<Record<string, string>>;
  /** Programs found on the PATH that do not run in the sandbox, with why. */
  readonly broken?: Readonly<Record<string, string>>;
  /** Whether the network is shared with the host (`shell.network`). */
  readonly network: boolean;
  /** The shell programs run with (`/bin/bash`, else `/bin/sh`). */
  readonly shell: string;
  /** A shell command's default and longest time limit, in seconds (`shell.timeoutS`, `maxTimeoutS`). */
  readonly timeoutS: { readonly default: number; readonly max: number };
  /**
   * What holds a run's process count: the kernel's `rlimit` (every user but
   * root), or, for root, whom the kernel does not count, a `watch` that kills
   * the run past the limit (the command runs niced below it).
   */
  readonly processLimit: "rlimit" | "watch";
  /**
   * How a writing command's writes reach the roots: `overlay`, they wait in
   * an overlay and are merged when it ends, protected names refused (so none
   * exists in a root, not even while it runs); or `direct`, they go straight
   * to the roots and protected names it created are set aside when it ends,
   * with why the overlay is not used.
   */
  readonly writes: { readonly mode: "overlay" } | {
    readonly mode: "direct";
    readonly reason: string;
  };
}

/** Runs programs confined by the kernel. */
export interface Sandbox {
  /** Whether it runs programs, and how. */
  readonly status: SandboxStatus;
  /**
   * Run one program.
   *
   * @param request What to run, where, for how long.
   * @returns What it did; a timeout or cancellation is a result, not an error.
   * @throws {ToolError} `path_denied` (cwd outside the roots), `not_found` (cwd missing),
   *   `unsupported` (the sandbox is off).
   */
  run(request: SandboxRequest): Promise<SandboxResult>;
}

/**
 * The sandbox service of a host-side tool's context.
 *
 * @param ctx The call's context.
 * @returns The sandbox.
 * @throws {ToolError} `internal_error` when the host gave none (a worker's context).
 */
export function sandboxOf(ctx: ToolContext): Sandbox {
  const sandbox = ctx.shared<Sandbox | undefined>(SANDBOX_SERVICE, () => undefined);
  if (sandbox === undefined) {
    throw new ToolError("internal_error", "this tool runs only in the host, with its sandbox");
  }
  return sandbox;
}

/**
 * One process the host or a tool started, as the session's subprocess log
 * keeps it (`subprocess.jsonl`).
 */
export interface SubprocessRecord {
  /** The tool that started it (`run_shell`, `grep`), or the host's part (`upstream:<name>`). */
  readonly tool: string;
  /** The program and its arguments, as started inside its confinement. */
  readonly argv: readonly string[];
  /** Where it ran (absolute). */
  readonly cwd: string;
  /** What confined it. */
  readonly confinement: "bwrap" | "landlock" | "unconfined";
  /** Its exit code; null when a signal ended it or it is still running. */
  readonly exitCode: number | null;
  /** The signal that ended it, when one did. */
  readonly signal: string | null;
  /** Stopped at its time limit. */
  readonly timedOut: boolean;
  /** Stopped because the call was cancelled. */
  readonly cancelled: boolean;
  /** Wall time, in milliseconds. */
  readonly durationMs: number;
  /** Bytes it wrote to standard output. */
  readonly stdoutBytes: number;
  /** Bytes it wrote to standard error. */
  readonly stderrBytes: number;
  /** The first bytes of its standard output (the log bounds and redacts them). */
  readonly stdoutHead: string;
  /** The first bytes of its standard error. */
  readonly stderrHead: string;
  /** The command verbatim as the agent wrote it (a shell command): kept in the session's `scripts/`. */
  readonly script?: string;
}

/** Where started processes are recorded (the session log; a no-op when logging is off). */
export interface SubprocessLog {
  /**
   * Record one process that ended.
   *
   * @param record What it was and what it did.
   */
  record(record: SubprocessRecord): void;
}
