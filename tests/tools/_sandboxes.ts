/**
 * Sandboxes for unit tests of the tools that run programs (`tools/sandbox.ts`):
 * one that records each request and answers as the test says, one that runs
 * the program directly (unconfined), and the context that carries one.
 *
 * @module
 */

import {
  type Sandbox,
  SANDBOX_SERVICE,
  type SandboxRequest,
  type SandboxResult,
  type SandboxStatus,
} from "../../tools/sandbox.ts";
import { type ToolContext, ToolError } from "../../tools/tool.ts";

/** What a scripted sandbox answers for one request: the parts of a result that differ. */
export type Answer = Partial<SandboxResult>;

/** A sandbox that records each request and answers from `answer` (a success with no output by default). */
export class ScriptedSandbox implements Sandbox {
  /** Every request, in order. */
  readonly requests: SandboxRequest[] = [];
  /** What it reports: active, with the programs it was made with. */
  readonly status: SandboxStatus;
  #answer: (request: SandboxRequest) => Answer;

  /**
   * @param answer What a request gives.
   * @param programs The programs on its PATH, by name.
   */
  constructor(
    answer: (request: SandboxRequest) => Answer,
    programs: Record<string, string> = {},
  ) {
    this.#answer = answer;
    this.status = {
      active: true,
      mode: "bwrap",
      programs,
      network: false,
      shell: "/bin/sh",
      timeoutS: { default: 60, max: 600 },
      processLimit: "rlimit",
      writes: { mode: "overlay" },
    };
  }

  /**
   * Record the request and answer it; the byte counts follow the answered streams.
   *
   * @param request What to run.
   * @returns The answer, as a full result.
   */
  run(request: SandboxRequest): Promise<SandboxResult> {
    this.requests.push(request);
    const answer = this.#answer(request);
    const bytes = (text: string | undefined) => new TextEncoder().encode(text ?? "").length;
    return Promise.resolve({
      ...succeeded(request),
      stdoutBytes: bytes(answer.stdout),
      stderrBytes: bytes(answer.stderr),
      ...answer,
    });
  }
}

/** A sandbox that runs the program directly (unconfined), with only the request's environment. */
export class DirectSandbox extends ScriptedSandbox {
  constructor() {
    super(() => ({}), { git: "/usr/bin/git" });
  }

  /**
   * Run the program with the request's environment (and PATH).
   *
   * @param request What to run.
   * @returns What it did.
   */
  override async run(request: SandboxRequest): Promise<SandboxResult> {
    this.requests.push(request);
    const [program, ...args] = request.argv;
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(program!, {
        args,
        cwd: request.cwd ?? "/",
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: "/nonexistent",
          ...request.env,
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: request.signal,
      }).output();
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("not_found", `"${request.cwd}" does not exist`);
      }
      throw error;
    }
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      ...succeeded(request),
      exitCode: out.code,
      stdout: text(out.stdout),
      stderr: text(out.stderr),
      stdoutBytes: out.stdout.length,
      stderrBytes: out.stderr.length,
    };
  }
}

/** A successful run with no output. */
function succeeded(request: SandboxRequest): SandboxResult {
  return {
    exitCode: 0,
    signal: null,
    stdout: "",
    stderr: "",
    stdoutBytes: 0,
    stderrBytes: 0,
    timedOut: false,
    cancelled: false,
    limited: null,
    durationMs: 1,
    cwd: request.cwd ?? "",
    setAside: [],
    kept: [],
  };
}

/**
 * Give a context a sandbox (as the host gives host-side tools theirs).
 *
 * @param ctx The context (from `toolContext`).
 * @param sandbox The sandbox.
 * @returns The same context.
 */
export function withSandbox(ctx: ToolContext, sandbox: Sandbox): ToolContext {
  ctx.shared(SANDBOX_SERVICE, () => sandbox);
  return ctx;
}
