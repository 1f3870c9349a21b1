/**
 * The doctor's probes of the capabilities: ripgrep runs in a confined
 * worker, each efferent-copy peer is a sink, and the configuration has
 * nothing that is ignored. A capability that is not in effect says why.
 *
 * @module
 */

import { FAMILIES } from "../../tools/families.ts";
import { HOST_TOOL_FAMILIES } from "../../tools/host_tools.ts";
import type { HostConfig } from "../config/mod.ts";
import { efferentCopyEnabled, selfEntries, unknownToolNames } from "../config/mod.ts";
import { peerLaunch } from "../sandbox/mod.ts";
import type { RipgrepStatus } from "../workers/mod.ts";
import type { ProbeResult } from "./doctor_report.ts";

/**
 * ripgrep in a confined worker: in use, or why not. A path the user gave
 * that cannot run fails; "not found" and "switched off" only say so.
 *
 * @param status What the tool worker found.
 * @param config The configuration (whether the user chose a path).
 * @returns The probe.
 */
export function ripgrepProbe(status: RipgrepStatus, config: HostConfig): ProbeResult {
  const name = "ripgrep: runs in a confined tool worker";
  if (status.active) {
    return { name, ok: true, detail: `in use: ${status.version} (${status.path})` };
  }
  const chosen = config.ripgrep.path !== null;
  return {
    name,
    ok: !chosen,
    detail: `not in use: ${status.reason}; searches use the JS walker${
      chosen ? "" : " (install ripgrep, or name it with --ripgrep, for faster searches)"
    }`,
  };
}

/**
 * Each efferent-copy peer: a sink, or why not (when efferent copy is on).
 *
 * @param config The configuration (its `.mcp.json`).
 * @returns One probe per peer, one saying efferent copy is off, or none without peers.
 */
export async function sinkProbes(config: HostConfig): Promise<ProbeResult[]> {
  const others = await otherPeers(config.peers);
  if (others.length === 0) return [];
  const launch = peerLaunch(config);
  if (!efferentCopyEnabled()) {
    const held = launch.refused === undefined ? "" : `; with it on, not started: ${launch.refused}`;
    return [{
      name: "efferent copy",
      ok: true,
      detail: `off (EFFERENT_COPY_ENABLE=1 turns it on); peers in ${config.mcpJson}: ${
        others.join(", ")
      }${held}`,
    }];
  }
  if (launch.refused !== undefined) {
    return [{ name: "efferent copy: peers", ok: false, detail: `not started: ${launch.refused}` }];
  }
  const { discoverSinks } = await import("../../sinks/discovery.ts");
  const found = await discoverSinks({
    mcpJson: config.mcpJson,
    peers: config.peers,
    selfEntry: selfEntries(),
    cwd: config.policy.roots[0]!,
    // Each peer that is not a sink comes back in `rejected`, with why: the probes say it.
    warn: () => {},
    ...(launch.launcher ? { launcher: launch.launcher } : {}),
  });
  const probes: ProbeResult[] = found.sinks.map((sink) => ({
    name: `efferent copy: sink "${sink.name}"`,
    ok: true,
    detail: "a sink: its observe tool takes {tool_name, args}",
  }));
  for (const peer of found.rejected) {
    probes.push({
      name: `efferent copy: sink "${peer.name}"`,
      ok: false,
      detail: `not a sink: ${peer.reason}`,
    });
  }
  await Promise.all(found.sinks.map((sink) => sink.close()));
  return probes;
}

/** The names of the servers in `.mcp.json` that are not this host itself. */
async function otherPeers(peers: HostConfig["peers"]): Promise<string[]> {
  const { isSelfReference } = await import("../../sinks/peers.ts");
  const others: string[] = [];
  for (const [name, entry] of Object.entries(peers)) {
    if (!(await isSelfReference(entry, selfEntries()))) others.push(name);
  }
  return others;
}

/**
 * Whatever the configuration says that is not in effect.
 *
 * @param config The configuration (its warnings).
 * @returns One failed probe per warning.
 */
export function configProbes(config: HostConfig): ProbeResult[] {
  return config.warnings.map((warning) => ({
    name: "configuration: ignored",
    ok: false,
    detail: warning,
  }));
}

/**
 * The names in the config's `tools` section: each one that is no tool or
 * family fails (the host serves on, ignoring it); none named, no probe.
 *
 * @param config The configuration (its `tools` section).
 * @param workerTools The names of every tool a worker runs.
 * @returns One failed probe per unknown name, or one that passed.
 */
export function toolNameProbes(config: HostConfig, workerTools: readonly string[]): ProbeResult[] {
  const { enabled, disabled, families } = config.tools;
  const named = (enabled?.length ?? 0) + (disabled?.length ?? 0) +
    Object.keys(families ?? {}).length;
  if (named === 0) return [];
  const name = "configuration: tool names";
  const unknown = unknownToolNames(config.tools, {
    tools: [...workerTools, ...Object.keys(HOST_TOOL_FAMILIES)],
    families: FAMILIES.map((family) => family.name),
  });
  if (unknown.length === 0) {
    return [{ name, ok: true, detail: `each of the ${named} names is a tool or a family` }];
  }
  return unknown.map((line) => ({
    name,
    ok: false,
    detail: `${line}; ignored: the host serves on`,
  }));
}

/**
 * The Hook API and the approval rules: where a human answers, or that no
 * one can but an eliciting client.
 *
 * @param config The configuration.
 * @returns One probe.
 */
export function approvalProbe(config: HostConfig): ProbeResult {
  const rules = config.approvals.length;
  const hooks = config.hooks;
  const where = hooks === null
    ? "the Hook API and dashboard are off"
    : `Hook API and dashboard on 127.0.0.1:${hooks.port === 0 ? "<chosen at start>" : hooks.port}`;
  if (rules === 0) return { name: "approvals", ok: true, detail: `none configured; ${where}` };
  return {
    name: "approvals",
    ok: true,
    detail: `${rules} rule(s), answered through ${
      hooks === null
        ? "MCP elicitation only (clients without it time out): the Hook API is off"
        : `${where}, and MCP elicitation where the client supports it`
    }`,
  };
}
