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
import { BwrapSandbox, type GuardCall, oneAtATime } from "./sandbox.ts";
import { loadPlan } from "./plan.ts";

export { BwrapSandbox, type GuardCall } from "./sandbox.ts";
export { computePlan, expand, loadPlan, NEVER_VISIBLE, PLAN_ENV } from "./plan.ts";
export { type PeerLaunch, peerLaunch, type ServerSandbox, serverSandbox } from "./server.ts";

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
  // The probes run at once, their guard calls one at a time: none waits behind another in the
  // pool, which would start a second worker for a few milliseconds' work.
  const probing = { ...parts, guard: oneAtATime(start.guard) };
  const programs = programsThatRun(new BwrapSandbox(probing, status));
  // One writing `true` over overlays answers both questions when it runs (the usual case).
  const writes = status.writes.mode === "overlay"
    ? await probeOverlay(new BwrapSandbox(probing, status))
    : status.writes;
  const probe = new BwrapSandbox(probing, { ...status, writes });
  const why = writes.mode === "overlay" ? undefined : await probeRun(probe);
  if (why !== undefined) {
    await programs;
    const off = { mode: "direct", reason: "the sandbox is off" } as const;
    return new BwrapSandbox(parts, {
      ...status,
      active: false,
      mode: "off",
      reason: why,
      writes: off,
    });
  }
  return new BwrapSandbox(parts, { ...status, writes, ...await programs });
}

/**
 * Whether writing runs can go over overlays here: a writing `true` over
 * them, as every writing run will be started (the kernel must let a user
 * namespace mount overlayfs, util-linux's `mount` must be in the sandbox,
 * and a tool worker must merge); else why not (and the plain probe then
 * says whether the sandbox runs at all).
 */
async function probeOverlay(probe: BwrapSandbox): Promise<SandboxStatus["writes"]> {
  const why = await probeRun(probe, ["true"], "write");
  if (why === undefined) return { mode: "overlay" };
  return { mode: "direct", reason: `overlays cannot be used here: ${why}` };
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
  const found = Object.entries(sandbox.status.programs);
  const whys = await Promise.all(found.map(([name]) => probeRun(sandbox, [name, "--version"])));
  found.forEach(([name, path], i) => {
    const why = whys[i];
    if (why === undefined) programs[name] = path;
    else broken[name] = why;
  });
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
  const direct = (reason: string) => ({ mode: "direct", reason }) as const;
  const off = (reason: string): SandboxStatus => ({
    ...common,
    active: false,
    mode: "off",
    reason,
    writes: direct("the sandbox is off"),
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
      writes: direct("commands run unconfined"),
    };
  }
  if (plan.bwrap === null) return off(plan.reason ?? "bwrap was not found");
  const runnable = Deno.permissions.querySync({ name: "run", command: plan.bwrap }).state;
  if (runnable !== "granted") {
    return off(`this process may not run ${plan.bwrap} (its flags predate the sandbox)`);
  }
  return { ...common, active: true, mode: "bwrap", writes: overlayWrites(config, plan) };
}

/** Whether writing runs may try overlays, before the probe: a scratch directory and the host's ids. */
function overlayWrites(config: HostConfig, plan: SandboxPlan): SandboxStatus["writes"] {
  const { scratch } = config.policy;
  if (scratch.dir === null) {
    return { mode: "direct", reason: `overlays need a scratch directory: ${scratch.reason}` };
  }
  if (plan.uid === undefined || plan.gid === undefined) {
    return { mode: "direct", reason: "the launcher could not tell the host's user and group ids" };
  }
  return { mode: "overlay" };
}

/** Run `true` (or a program's `--version`) in the sandbox: undefined when it ran, else why not. */
async function probeRun(
  sandbox: BwrapSandbox,
  argv: string[] = ["true"],
  access: "read" | "write" = "read",
): Promise<string | undefined> {
  try {
    const result = await sandbox.run({
      argv,
      access,
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
