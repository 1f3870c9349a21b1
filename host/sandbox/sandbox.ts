/**
 * The sandbox service (`tools/sandbox.ts`), on bubblewrap: each run gets the
 * layout `security/sandbox.ts` computes, under the limits of its script;
 * the part that reads the roots (where it starts, which protected entries
 * exist, which appeared) runs in a confined tool worker (`sandbox_guard`);
 * every run is recorded in the session's subprocess log.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { ToolError } from "../../security/errors.ts";
import { isInside, type Policy } from "../../security/policy.ts";
import {
  bwrapArgs,
  type HiddenPath,
  limitScript,
  type SandboxPlan,
  START_MARK,
} from "../../security/sandbox.ts";
import type {
  Sandbox,
  SandboxRequest,
  SandboxResult,
  SandboxStatus,
  SubprocessLog,
} from "../../tools/sandbox.ts";
import type { ToolResult } from "../../tools/tool.ts";
import { spawnBounded, type Spawned } from "./_spawn.ts";
import { overlayArgs, type OverlayRoot } from "../../security/sandbox_overlay.ts";

/** Runs an internal tool in a confined tool worker (`sandbox_guard`). */
export type GuardCall = (args: Record<string, unknown>) => Promise<ToolResult>;

/**
 * A function whose calls run one after another, each when the one before it has ended.
 *
 * @param call The function.
 * @returns The same function, its calls in order.
 */
export function oneAtATime<A, R>(call: (args: A) => Promise<R>): (args: A) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve();
  return (args) => {
    const next = last.then(() => call(args));
    last = next.catch(() => {}); // Safe: the caller of `next` gets its error.
    return next;
  };
}

/** What a sandbox is made with. */
export interface SandboxParts {
  /** What the launcher found. */
  plan: SandboxPlan;
  /** The policy (roots, state directory). */
  policy: Policy;
  /** The guard, in a tool worker. */
  guard: GuardCall;
  /** Where runs are recorded. */
  log: SubprocessLog;
  /** Bytes kept of each stream by default. */
  maxOutputBytes: number;
}

/** What the guard found before a run, and the overlays it made for a writing one. */
interface Before {
  cwd: string;
  protectedPaths: string[];
  seen: string[];
  hidden: HiddenPath[];
  overlays?: OverlayRoot[];
}

/** What the guard did after a writing run. */
interface After {
  setAside: string[];
  kept: string[];
}

/** How bwrap says it could not set a run up (then the program never ran). */
const BWRAP_FAILED = /^bwrap: (.*)/m;

/** The sandbox: bubblewrap, or (the user's choice) the host's shell unconfined. */
export class BwrapSandbox implements Sandbox {
  #parts: SandboxParts;
  /** The guard's merges, one at a time (two runs' writes never interleave). */
  #merge = oneAtATime((args: Record<string, unknown>) => this.#guard(args));
  /** Whether it runs programs, and how. */
  readonly status: SandboxStatus;

  /**
   * @param parts The plan, policy, guard, log and output bound.
   * @param status What the start-up probe found.
   */
  constructor(parts: SandboxParts, status: SandboxStatus) {
    this.#parts = parts;
    this.status = status;
  }

  /**
   * Run one program in the sandbox.
   *
   * @param request What to run, where, for how long.
   * @returns What it did.
   * @throws {ToolError} `unsupported` when off, `path_denied`/`not_found` for a bad cwd.
   */
  async run(request: SandboxRequest): Promise<SandboxResult> {
    if (!this.status.active) {
      throw new ToolError("unsupported", `programs cannot run here: ${this.status.reason}`);
    }
    const { plan, policy } = this.#parts;
    const stamp = new Date().toISOString();
    const overlay = request.access === "write" && this.status.writes.mode === "overlay";
    const before = await this.#before(request, overlay, stamp);
    const env = { ...plan.env, PATH: plan.path, HOME: plan.home, ...request.env };
    const confined = this.status.mode === "bwrap";
    let spawned: Spawned;
    let after: After = { setAside: [], kept: [] };
    try {
      spawned = await spawnBounded({
        ...this.#command(request, before, env),
        // bwrap itself runs in the host's world: it gets no environment; the sandbox's is set inside.
        env: confined ? {} : env,
        cwd: confined ? "/" : before.cwd,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        maxBytes: request.maxOutputBytes ?? this.#parts.maxOutputBytes,
        startMark: START_MARK,
        ...(request.onOutput ? { onOutput: request.onOutput } : {}),
        ...(request.stdin ? { stdin: request.stdin } : {}),
      });
    } finally {
      // Whatever the run said or however it ended: its writes are merged, or what it created at
      // protected names goes.
      if (request.access === "write") after = await this.#after(before, stamp);
    }
    this.#record(request, before.cwd, spawned);
    refuseSetupFailure(spawned, before.cwd, policy);
    const limited = spawned.stderr.match(/toolhost: more than \d+ processes[^\n]*/)?.[0] ?? null;
    const { started: _started, ...result } = spawned;
    return { ...result, cwd: before.cwd, limited, ...after };
  }

  /** The program and arguments: bwrap, the layout, the limit script, the request's argv. */
  #command(
    request: SandboxRequest,
    before: Before,
    env: Record<string, string>,
  ): { program: string; args: string[] } {
    const { plan, policy } = this.#parts;
    const watch = this.status.mode === "bwrap";
    // Root is not held by the process rlimit: the watch holds, and the command runs niced below it.
    const how = {
      watch: watch && plan.shell.endsWith("bash"),
      nice: this.status.processLimit === "watch",
    };
    const inner = [plan.shell, "-c", limitScript(plan.limits, how), "toolhost", ...request.argv];
    if (!watch) return { program: plan.unconfined!, args: inner.slice(1) };
    const layoutPlan = { ...plan, hidden: [...plan.hidden, ...before.hidden] };
    const run = {
      roots: policy.roots,
      write: request.access === "write",
      protectedPaths: before.protectedPaths,
      stateDir: policy.stateDir,
      cwd: before.cwd,
      env,
    };
    const layout = before.overlays
      ? overlayArgs(layoutPlan, run, before.overlays)
      : bwrapArgs(layoutPlan, run);
    return { program: plan.bwrap!, args: [...layout, ...inner] };
  }

  /** Where it starts, and what to mount read-only or empty: the guard looks in a tool worker. */
  async #before(request: SandboxRequest, overlay: boolean, stamp: string): Promise<Before> {
    const { policy } = this.#parts;
    const cwd = posix.resolve(policy.roots[0]!, request.cwd ?? ".");
    if (!isInside(cwd, policy.roots)) {
      throw new ToolError(
        "path_denied",
        `${JSON.stringify(request.cwd)} is outside the allowed roots (${policy.roots.join(", ")})`,
      );
    }
    const data = await this.#guard({ mode: "before", cwd, ...(overlay ? { overlay, stamp } : {}) });
    return {
      cwd: data.cwd as string,
      protectedPaths: data.protected_paths as string[],
      seen: data.seen as string[],
      hidden: data.hidden as HiddenPath[],
      ...(data.overlays ? { overlays: data.overlays as OverlayRoot[] } : {}),
    };
  }

  /**
   * Merge the run's overlays, one merge at a time (two runs' writes never
   * interleave); or, writing straight to the roots, set aside the protected
   * entries the run created.
   */
  #after(before: Before, stamp: string): Promise<After> {
    const args = before.overlays
      ? { mode: "after", overlays: before.overlays, stamp }
      : { mode: "after", seen: before.seen, stamp };
    return this.#merge(args).then((data) => ({
      setAside: data.set_aside as string[],
      kept: (data.kept as string[] | undefined) ?? [],
    }));
  }

  async #guard(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await this.#parts.guard(args);
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    if (result.isError) throw errorFrom(text);
    return result.structuredContent ?? {};
  }

  #record(request: SandboxRequest, cwd: string, spawned: Spawned): void {
    this.#parts.log.record({
      tool: request.tool,
      argv: request.argv,
      cwd,
      confinement: this.status.mode === "bwrap" ? "bwrap" : "unconfined",
      exitCode: spawned.exitCode,
      signal: spawned.signal,
      timedOut: spawned.timedOut,
      cancelled: spawned.cancelled,
      durationMs: spawned.durationMs,
      stdoutBytes: spawned.stdoutBytes,
      stderrBytes: spawned.stderrBytes,
      stdoutHead: spawned.stdout.slice(0, 512),
      stderrHead: spawned.stderr.slice(0, 512),
      ...(request.script !== undefined ? { script: request.script } : {}),
    });
  }
}

/**
 * bwrap could not set the run up (its cwd is gone, say), or the overlays
 * could not be mounted: an error, not the program's result.
 */
function refuseSetupFailure(spawned: Spawned, cwd: string, policy: Policy): void {
  const failed = spawned.exitCode !== 0 && !spawned.started && spawned.stdoutBytes === 0
    ? spawned.stderr.match(BWRAP_FAILED)?.[1] ?? spawned.stderr.trim().split("\n")[0]
    : undefined;
  if (failed === undefined || spawned.timedOut || spawned.cancelled) return;
  const shown = cwd.startsWith(`${policy.roots[0]}/`)
    ? cwd.slice(policy.roots[0]!.length + 1)
    : cwd;
  if (/chdir/i.test(failed)) {
    throw new ToolError("not_found", `Cannot run in "${shown}": it is not an existing directory`);
  }
  throw new ToolError("internal_error", `the sandbox could not start: ${failed}`);
}

/** A guard's error as the ToolError it carried (`code: message`). */
function errorFrom(text: string): ToolError {
  const match = text.match(/^([a-z_]+): ([\s\S]*)$/);
  return match
    ? new ToolError(match[1] as ConstructorParameters<typeof ToolError>[0], match[2]!)
    : new ToolError("internal_error", text);
}
