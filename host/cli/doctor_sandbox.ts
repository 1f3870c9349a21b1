/**
 * The doctor's probes of the sandbox for programs (run_shell, git, bd): it
 * is made as the host makes it (its guard in the doctor's tool worker),
 * and a command in it must neither read the doctor's file outside the roots
 * nor write next to it. Where bwrap is missing the probe says so, and what
 * is not listed; commands run unconfined fail the probe.
 *
 * @module
 */

import type { SandboxStatus } from "../../tools/sandbox.ts";
import { writesPhrase } from "../../tools/observe/status_phrases.ts";
import type { HostConfig } from "../config/mod.ts";
import { startSandbox } from "../sandbox/mod.ts";
import type { WorkerPool } from "../workers/mod.ts";
import type { ProbeResult, ProbeTargets } from "./doctor_report.ts";

/** The sandbox's probe, and its status (the served probe compares it). */
export interface SandboxFindings {
  /** The probe. */
  probe: ProbeResult;
  /** What the sandbox is here. */
  status: SandboxStatus;
}

/**
 * Make the sandbox and try to reach the outside file from a command in it.
 *
 * @param config The configuration.
 * @param pool The doctor's tool worker (the sandbox's guard runs there).
 * @param targets The outside file and directory.
 * @returns The probe and the sandbox's status.
 */
export async function sandboxProbe(
  config: HostConfig,
  pool: WorkerPool,
  targets: ProbeTargets,
): Promise<SandboxFindings> {
  const name = "sandbox: a command cannot read or write outside the roots";
  const sandbox = await startSandbox({
    config,
    guard: async (args) => (await pool.call("sandbox_guard", args)).result,
    log: { record: () => {} }, // the doctor keeps no session
  });
  const status = sandbox.status;
  if (status.mode === "off") {
    return {
      status,
      probe: {
        name,
        ok: true,
        detail: `not in effect: ${status.reason}; run_shell, git and bd tools are not listed`,
      },
    };
  }
  if (status.mode === "unconfined") {
    return { status, probe: { name, ok: false, detail: status.reason! } };
  }
  const written = `${targets.outsideDir}/from-the-sandbox.txt`;
  const result = await sandbox.run({
    argv: [status.shell, "-c", `cat "${targets.secret}"; echo x > "${written}"; echo ran`],
    access: "write",
    timeoutMs: 30_000,
    signal: AbortSignal.timeout(60_000),
    tool: "doctor",
  });
  const read = result.stdout.includes("outside content");
  const wrote = await Deno.lstat(written).then(() => true, () => false);
  const ran = result.stdout.includes("ran");
  const ok = ran && !read && !wrote;
  const detail = ok
    ? `confined by bubblewrap${status.network ? " (network shared)" : ", no network"}: ` +
      `${targets.secret} unreadable, ${targets.outsideDir} unwritable; ${
        writesPhrase(status.writes)
      }`
    : !ran
    ? `the command did not run: ${result.stderr.trim().slice(0, 300)}`
    : `${read ? `read ${targets.secret}` : ""}${read && wrote ? " and " : ""}${
      wrote ? `wrote ${written}` : ""
    } from inside the sandbox`;
  return { status, probe: { name, ok, detail } };
}
