/**
 * `toolhost doctor`: live probes of both boundaries on a real host.
 *
 * - Outer (`doctor_outer.ts`): inside a tool worker started exactly as the
 *   host starts them, raw Deno operations outside the roots (read, write,
 *   run, net, env) must fail with `NotCapable`.
 * - Inner (`doctor_inner.ts`): through the full host, a symlink to outside,
 *   `..` and an absolute path outside must be `path_denied`.
 * - Capabilities (`doctor_capabilities.ts`): ripgrep runs in a confined
 *   worker, each efferent-copy peer is a sink, each upstream server answers;
 *   the configuration has nothing that is ignored; the web tools' network
 *   worker refuses loopback and files (`doctor_network.ts`). A capability
 *   that is not in effect says why.
 * - Served (`doctor_served.ts`): the server, started exactly as `mcp-config`
 *   prints it, confines its tool workers and uses ripgrep as the probes here
 *   found.
 *
 * @module
 */

import { printable, printableJson } from "../../security/printable.ts";
import type { ConfigOverrides, HostConfig } from "../config/mod.ts";
import {
  approvalProbe,
  configProbes,
  ripgrepProbe,
  sinkProbes,
  toolNameProbes,
} from "./doctor_capabilities.ts";
import { innerProbes } from "./doctor_inner.ts";
import { networkProbe } from "./doctor_network.ts";
import { outerProbes } from "./doctor_outer.ts";
import type { DoctorReport, ProbeResult, ProbeTargets } from "./doctor_report.ts";
import { servedProbe, startServed } from "./doctor_served.ts";
import type { OutputOptions } from "./printer.ts";

export type { DoctorReport, ProbeResult } from "./doctor_report.ts";

/** Where else to make the outside directory when the temp directory is inside a root. */
const OUTSIDE_BASES = ["/var/tmp", "/dev/shm"];

/**
 * Run every probe against a configuration.
 *
 * @param config The resolved configuration.
 * @param overrides The command-line options it came from (the served probe starts with them).
 * @returns The report.
 */
export async function runDoctor(
  config: HostConfig,
  overrides: ConfigOverrides = {},
): Promise<DoctorReport> {
  const roots = config.policy.roots;
  const outsideDir = await makeOutsideDir(roots);
  if (outsideDir === undefined) return { probes: [noOutsideDir()], roots, ok: false };
  const secret = `${outsideDir}/secret.txt`;
  await Deno.writeTextFile(secret, "toolhost doctor: outside content\n");
  const link = `${roots[0]}/.toolhost-doctor-link-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.symlink(secret, link);
    const probes = await everyProbe(config, overrides, { outsideDir, secret, link });
    return { probes, roots, ok: probes.every((probe) => probe.ok) };
  } finally {
    // Safe to drop: the link was never made (the symlink failed), so there is nothing to remove.
    await Deno.remove(link).catch(() => {});
    // Safe to drop: a leftover temp directory outside the roots holds only the doctor's own file.
    await Deno.remove(outsideDir, { recursive: true }).catch(() => {});
  }
}

/** Every probe, in the report's order: outer, capabilities and inner, served last. */
async function everyProbe(
  config: HostConfig,
  overrides: ConfigOverrides,
  targets: ProbeTargets,
): Promise<ProbeResult[]> {
  // The probes do not depend on each other: the served server (a process of its own), the tool
  // worker, the host and the network worker start together, and are reported in this order.
  const served = startServed(config, overrides);
  const [outer, inner, sinks, network] = await Promise.all([
    outerProbes(config, targets),
    innerProbes(config, targets),
    sinkProbes(config),
    networkProbe(config, targets),
  ]);
  return [
    ...outer.probes,
    ripgrepProbe(outer.ripgrep, config),
    ...inner,
    ...sinks,
    ...configProbes(config),
    approvalProbe(config),
    network,
    ...toolNameProbes(config, outer.tools),
    servedProbe(await served, outer),
  ];
}

/** The failed setup when the roots leave no place outside them to probe with. */
function noOutsideDir(): ProbeResult {
  return {
    name: "setup: a directory outside the roots to probe with",
    ok: false,
    detail: `every candidate (the temp directory, ${
      OUTSIDE_BASES.join(", ")
    }, the home directory) is inside the roots or not writable: the roots leave nothing outside to keep the tools from`,
  };
}

/**
 * Make a fresh directory outside every root, for the outside file the
 * probes try to reach (a root may hold the temp directory: `--root /tmp`).
 *
 * @returns Its real path, or `undefined` when no candidate place is outside the roots.
 */
async function makeOutsideDir(roots: readonly string[]): Promise<string | undefined> {
  for (const base of [undefined, ...OUTSIDE_BASES, homeDir()]) {
    let dir: string;
    try {
      dir = await Deno.realPath(
        await Deno.makeTempDir({
          prefix: "toolhost-doctor-outside-",
          ...(base === undefined ? {} : { dir: base }),
        }),
      );
    } catch {
      continue; // Safe to drop: not there, or not writable; the next candidate is tried.
    }
    const inside = roots.some((root) =>
      dir === root || dir.startsWith(root.endsWith("/") ? root : `${root}/`)
    );
    if (!inside) return dir;
    await Deno.remove(dir);
  }
  return undefined;
}

/** `HOME`, or `undefined` where it is not set or may not be read. */
function homeDir(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined; // Safe to drop: no permission to read it, so it is one candidate fewer.
  }
}

/**
 * `toolhost doctor`: run the probes and print the report. Probes quote
 * what they met (paths, config values, server names, what a server said):
 * each line is shown through {@linkcode printable}, the JSON through
 * {@linkcode printableJson}.
 *
 * @param config The resolved configuration.
 * @param overrides The command-line options it came from.
 * @param options `json` for the report as JSON; `printer` where to print.
 * @returns 0 when every probe held, else 1.
 */
export async function doctorCommand(
  config: HostConfig,
  overrides: ConfigOverrides,
  options: OutputOptions,
): Promise<number> {
  const { json, printer } = options;
  const report = await runDoctor(config, overrides);
  if (json) printer.out(printableJson(JSON.stringify(report, null, 2)));
  else {
    printer.out(`toolhost doctor — roots: ${printable(report.roots.join(", "))}`);
    for (const probe of report.probes) {
      printer.out(`${probe.ok ? "ok  " : "FAIL"}  ${printable(`${probe.name}: ${probe.detail}`)}`);
    }
    printer.out(report.ok ? "Both boundaries held." : "Not every probe passed: see FAIL above.");
  }
  return report.ok ? 0 : 1;
}
