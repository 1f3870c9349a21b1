/**
 * The sandbox for programs (run_shell, git, bd): its plan, and the service
 * host-side tools run programs through.
 *
 * @module
 */

import type { SandboxPlan } from "../../security/sandbox.ts";
import type { SandboxStatus, SubprocessLog } from "../../tools/sandbox.ts";
import type { HostConfig } from "../config/mod.ts";
import type { WorkerPool } from "../workers/mod.ts";
import { BwrapSandbox, type GuardCall } from "./sandbox.ts";
import { computePlan, PLAN_ENV } from "./plan.ts";

export { BwrapSandbox, type GuardCall } from "./sandbox.ts";
export { computePlan, expand, NEVER_VISIBLE, PLAN_ENV } from "./plan.ts";

/** How long the start-up probe (`true` in the sandbox) may take. */
const PROBE_MS = 10_000;

/** What {@linkcode startSandbox} needs. */
export interface SandboxStart {
  /** The configuration. */
  config: HostConfig;
  /** The guard, in a tool worker. */
  guard: GuardCall;
  /** Where runs are recorded. */
  log: SubprocessLog;
}

/**
 * Make the sandbox and check that it runs: `true` in it, as every run will
 * be started. Where it cannot run, it is off and says why.
 *
 * @param start The configuration, the guard and the log.
 * @returns The sandbox (off, unconfined or bwrap).
 */
export async function startSandbox(start: SandboxStart): Promise<BwrapSandbox> {
  const { config } = start;
  const plan = loadPlan(config);
  const parts = {
    plan: plan.plan,
    policy: config.policy,
    guard: start.guard,
    log: start.log,
    // Each stream's share of a reply, which carries the output twice (text and structured).
    maxOutputBytes: Math.floor(config.policy.limits.maxOutputChars / 6),
  };
  const status = baseStatus(config, plan);
  if (!status.active || status.mode !== "bwrap") return new BwrapSandbox(parts, status);
  const probe = new BwrapSandbox(parts, status);
  const why = await probeRun(probe);
  if (why !== undefined) {
    return new BwrapSandbox(parts, { ...status, active: false, mode: "off", reason: why });
  }
  return new BwrapSandbox(parts, { ...status, ...await programsThatRun(probe) });
}

/**
 * The programs found on the PATH that run in the sandbox (`--version`): a
 * family is listed only where its programs run, not merely where a file of
 * that name is (an npm shim whose download failed, say).
 */
async function programsThatRun(
  sandbox: BwrapSandbox,
): Promise<Pick<SandboxStatus, "programs" | "broken">> {
  const programs: Record<string, string> = {};
  const broken: Record<string, string> = {};
  for (const [name, path] of Object.entries(sandbox.status.programs)) {
    const why = await probeRun(sandbox, [name, "--version"]);
    if (why === undefined) programs[name] = path;
    else broken[name] = why;
  }
  return { programs, broken };
}

/**
 * The host's sandbox: its guard runs in the tool workers.
 *
 * @param config The configuration.
 * @param pool The tool workers.
 * @param log Where runs are recorded (the session log).
 * @returns The sandbox (off, unconfined or bwrap).
 */
export async function sandboxFor(
  config: HostConfig,
  pool: WorkerPool,
  log: SubprocessLog,
): Promise<BwrapSandbox> {
  const guard = async (args: Record<string, unknown>) =>
    (await pool.call("sandbox_guard", args)).result;
  return await startSandbox({ config, guard, log });
}

/**
 * The plan: the launcher's (from {@linkcode PLAN_ENV}), or worked out here when this process may
 * read the system and the environment.
 *
 * @param config The configuration.
 * @returns The plan, and why it cannot be used when this process could not work it out.
 */
export function loadPlan(config: HostConfig): { plan: SandboxPlan; reason?: string } {
  const granted = (name: "env" | "read", value: string) =>
    Deno.permissions.querySync(name === "env" ? { name, variable: value } : { name, path: value })
      .state === "granted";
  if (granted("env", PLAN_ENV)) {
    const text = Deno.env.get(PLAN_ENV);
    if (text) return { plan: JSON.parse(text) as SandboxPlan };
  }
  const plan = computePlan(config);
  if (granted("env", "PATH") && granted("read", "/usr") && granted("read", "/etc")) return { plan };
  return {
    plan,
    reason:
      "this process was not started by the launcher, which works out what the sandbox shows " +
      '(start it with "toolhost start" or the command mcp-config prints)',
  };
}

/** On, unconfined or off, before the probe. */
function baseStatus(config: HostConfig, loaded: ReturnType<typeof loadPlan>): SandboxStatus {
  const { plan } = loaded;
  const { programs, network, shell, timeoutS } = plan;
  const common = {
    programs,
    network,
    shell,
    timeoutS,
    processLimit: plan.root ? "watch" : "rlimit",
  } as const;
  const off = (reason: string): SandboxStatus => ({
    ...common,
    active: false,
    mode: "off",
    reason,
  });
  if (config.shell.enabled === false) return off('switched off ("shell.enabled": false)');
  if (loaded.reason !== undefined) return off(loaded.reason);
  if (plan.unconfined !== null) {
    return {
      ...common,
      active: true,
      mode: "unconfined",
      reason:
        `commands run UNCONFINED (bwrap is missing: ${plan.reason}; "shell.unconfined": true)`,
    };
  }
  if (plan.bwrap === null) return off(plan.reason ?? "bwrap was not found");
  const runnable = Deno.permissions.querySync({ name: "run", command: plan.bwrap }).state;
  if (runnable !== "granted") {
    return off(`this process may not run ${plan.bwrap} (its flags predate the sandbox)`);
  }
  return { ...common, active: true, mode: "bwrap" };
}

/** Run `true` (or a program's `--version`) in the sandbox: undefined when it ran, else why not. */
async function probeRun(
  sandbox: BwrapSandbox,
  argv: string[] = ["true"],
): Promise<string | undefined> {
  try {
    const result = await sandbox.run({
      argv,
      access: "read",
      timeoutMs: PROBE_MS,
      signal: AbortSignal.timeout(PROBE_MS * 2),
      tool: "sandbox probe",
    });
    if (result.exitCode === 0) return undefined;
    const said = result.stderr.trim().split("\n")[0] ?? "";
    return `"${argv.join(" ")}" failed in the sandbox (exit code ${result.exitCode}${
      said ? `: ${said}` : ""
    })`;
  } catch (error) {
    return `"${argv.join(" ")}" could not run in the sandbox: ${(error as Error).message}`;
  }
}
