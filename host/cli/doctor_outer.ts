/**
 * The doctor's probes of the outer boundary: inside a tool worker started
 * exactly as the host starts them, raw Deno operations outside the roots
 * must fail with `NotCapable`, and with Landlock the worker's own thread
 * cannot open a symlink to outside.
 *
 * @module
 */

import type { LandlockStatus } from "../../security/landlock.ts";
import type { HostConfig } from "../config/mod.ts";
import { WorkerPool } from "../workers/mod.ts";
import type { Probe, RipgrepStatus } from "../workers/mod.ts";
import { assetPaths } from "../workers/mod.ts";
import type { ProbeResult, ProbeTargets } from "./doctor_report.ts";
import type { SandboxStatus } from "../../tools/sandbox.ts";
import { sandboxProbe } from "./doctor_sandbox.ts";

/** The outer probes' results, and what the worker found about confinement and ripgrep. */
export interface OuterFindings {
  /** The probes. */
  probes: ProbeResult[];
  /** Whether Landlock confines the tool worker, and why not. */
  landlock: LandlockStatus;
  /** Whether ripgrep runs in the tool worker, and why not. */
  ripgrep: RipgrepStatus;
  /** The names of the tools a worker runs, all of them (for the check of the config's tool names). */
  tools: string[];
  /** What the sandbox for programs is here. */
  sandbox: SandboxStatus;
}

/**
 * Start one tool worker as the host would, and try raw operations outside
 * the roots in it.
 *
 * @param config The resolved configuration.
 * @param targets What to try to reach.
 * @returns The probes, and the worker's Landlock and ripgrep status.
 */
export async function outerProbes(
  config: HostConfig,
  targets: ProbeTargets,
): Promise<OuterFindings> {
  const pool = await WorkerPool.start(config.policy, {
    size: 1,
    registry: {},
    ripgrep: config.ripgrep,
    extraRead: await assetPaths(),
    callTimeoutMs: config.callTimeoutMs,
    landlock: config.landlock,
    // The probes report what counts; the pool's own log lines would only clutter the report.
    logger: { log: () => {} },
  });
  try {
    const results: ProbeResult[] = [];
    for (const [name, probe, target] of workerCases(targets)) {
      const error = await pool.probe(probe, target);
      const ok = error === "NotCapable";
      results.push({
        name,
        ok,
        detail: ok
          ? `denied by Deno (NotCapable): ${target}`
          : `not denied (${error ?? "succeeded"}): ${target}`,
      });
    }
    results.push(await landlockProbe(pool, targets.link));
    const sandbox = await sandboxProbe(config, pool, targets);
    results.push(sandbox.probe);
    const tools = Object.keys(pool.families);
    const { landlock, ripgrep } = pool;
    return { probes: results, landlock, ripgrep, tools, sandbox: sandbox.status };
  } finally {
    pool.close();
  }
}

/** The raw operations a worker must be refused: name, probe, target. */
function workerCases({ outsideDir, secret }: ProbeTargets): Array<[string, Probe, string]> {
  return [
    ["worker: raw read outside the roots", "read", secret],
    ["worker: raw write outside the roots", "write", `${outsideDir}/written.txt`],
    ["worker: run a shell", "run", "/bin/sh"],
    ["worker: network", "net", "127.0.0.1"],
    ["worker: environment", "env", "HOME"],
  ];
}

/** The kernel layer: with Landlock, the worker's own thread cannot open a symlink to outside. */
async function landlockProbe(pool: WorkerPool, link: string): Promise<ProbeResult> {
  const name = "kernel: Landlock confines the tool worker's thread";
  const status = pool.landlock;
  if (!status.active) {
    return {
      name,
      ok: status.abi === 0,
      detail: status.abi === 0
        ? `not available here (${status.reason}); the resolver's checks stand alone against symlink swaps`
        : `the kernel has Landlock ABI ${status.abi} but confinement failed: ${status.reason}`,
    };
  }
  const error = await pool.probe("read_sync", link);
  // The reads' own libc calls have no Deno check in the way: the kernel alone must refuse them.
  const native = status.nativeReads ? await pool.probe("read_native", link) : "Refused";
  const ok = error === "PermissionDenied" && native === "Refused";
  const through = status.nativeReads ? "through Deno or libc" : "through Deno";
  return {
    name,
    ok,
    detail: ok
      ? `active (ABI ${status.abi}): a symlink to outside could not be opened by the worker's thread (${through})`
      : `active (ABI ${status.abi}) but the symlink read was not refused (Deno: ${
        error ?? "succeeded"
      }; libc: ${native ?? "succeeded"})`,
  };
}
