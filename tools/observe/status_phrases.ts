/**
 * The host's status in words: a phrase for each thing in effect or not
 * (saying why where something is not), shared by the start-up line,
 * `get_host_performance`, `toolhost doctor` and the line said when sink
 * discovery ends.
 *
 * @module
 */

import type { NetworkStatus } from "../network.ts";
import type { SandboxStatus } from "../sandbox.ts";
import type { HostStatus, LaunchStatus } from "./host_status.ts";

/**
 * What is in effect and what is not, a phrase each, saying why where
 * something is not: the start-up line, `get_host_performance` and the line
 * said when sink discovery ends all use these words.
 *
 * @param status The host's status.
 * @param mcpJson Where the sinks are looked for (for the "looking" phrase).
 * @returns The phrases, in a stable order.
 */
export function statusParts(status: HostStatus, mcpJson?: string): string[] {
  const { landlock, ripgrep } = status;
  return [
    landlockPhrase(landlock),
    ripgrep.active
      ? `ripgrep ${ripgrep.version?.replace(/^ripgrep\s+/, "") ?? ""} in use (${ripgrep.path})`
      : `ripgrep not in use: ${ripgrep.reason}; searches use the JS walker`,
    sandboxPhrase(status.sandbox),
    networkPhrase(status.network),
    ...efferentParts(status.efferent_copy, mcpJson),
    ...status.upstreams.map((upstream) =>
      upstream.state === "connected"
        ? `upstream "${upstream.name}" connected (${upstream.tools} tools${
          renamedPhrase(upstream)
        })`
        : `upstream "${upstream.name}" not connected: ${upstream.error}; retrying in the background`
    ),
    ...status.warnings.map((warning) => `ignored: ${warning}`),
    ...(status.workers.restarts > 0 ? [`tool workers restarted ${status.workers.restarts}×`] : []),
    ...(status.telemetry.state === "on"
      ? [
        `spans and metrics exported over OTLP/HTTP to ${
          new URL(status.telemetry.traces).origin
        } (set by the ${status.telemetry.from})`,
      ]
      : []),
    ...launchParts(status.launch),
  ];
}

/** The start-up line's phrase for how the process was launched (none when that is not known). */
function launchParts(launch: LaunchStatus | undefined): string[] {
  if (launch === undefined || launch.from === "unknown") return [];
  if (launch.from === "record") return ["started from its launch record"];
  return [
    launch.recorded
      ? "launch worked out afresh (recorded for the next start)"
      : `launch worked out afresh (not recorded: ${launch.reason})`,
  ];
}

/**
 * Landlock's phrase: whether it confines the tool workers, and whether their
 * reads call libc directly (only a confined worker's do) or go through
 * Deno's slower file calls.
 */
function landlockPhrase(landlock: HostStatus["landlock"]): string {
  if (!landlock.active) {
    return `Landlock is not active (${landlock.reason}); the resolver and Deno's permissions still confine the tools, whose reads go through Deno's file calls`;
  }
  return `tool workers confined by Landlock (ABI ${landlock.abi}); reads ${
    landlock.nativeReads
      ? "through libc"
      : "through Deno's file calls (libc's statx and realpath could not be loaded)"
  }`;
}

/** How many of an upstream's tools are listed under names made to fit MCP's rule, if any. */
function renamedPhrase(upstream: HostStatus["upstreams"][number]): string {
  const renamed = Object.keys(upstream.renamed ?? {}).length;
  return renamed === 0 ? "" : `, ${renamed} renamed to fit MCP's name rule: see toolhost doctor`;
}

/**
 * The network's phrase: what fetch_url and web_search may reach, or why
 * they are not listed.
 *
 * @param network The network's status.
 * @returns The phrase.
 */
export function networkPhrase(network: NetworkStatus): string {
  if (!network.active) return `fetch_url and web_search not listed: ${network.reason}`;
  return `fetch_url and web_search through a network worker with no file access (${network.reach}; DNS ${network.dns})`;
}

/**
 * The sandbox's phrase: what confines programs, or why run_shell (and the
 * tools that run programs) are not listed.
 *
 * @param sandbox The sandbox's status.
 * @returns The phrase.
 */
export function sandboxPhrase(sandbox: SandboxStatus): string {
  if (sandbox.mode === "unconfined") return `WARNING: run_shell ${sandbox.reason}`;
  if (!sandbox.active) return `run_shell, git and bd tools not listed: ${sandbox.reason}`;
  const programs = Object.keys(sandbox.programs);
  const limit = {
    rlimit: "processes limited by the process rlimit",
    watch: "processes limited by a watch (root is not held by the process rlimit)",
  }[sandbox.processLimit];
  const network = sandbox.network ? " (network shared)" : ", no network";
  const listed = programs.map((name) => `, ${name}`).join("");
  const broken = Object.entries(sandbox.broken ?? {})
    .map(([name, why]) => `; ${name} found but its tools not listed: ${why}`).join("");
  return `programs (run_shell${listed}) confined by bubblewrap${network}, ${limit}, ${
    writesPhrase(sandbox.writes)
  }${broken}`;
}

/**
 * How a writing command's writes reach the roots.
 *
 * @param writes The sandbox's writes mode.
 * @returns The phrase.
 */
export function writesPhrase(writes: SandboxStatus["writes"]): string {
  return writes.mode === "overlay"
    ? "writes merged into the roots when a command ends (protected paths refused)"
    : `writes straight to the roots (protected names a command creates are set aside when it ends, and exist until then): ${writes.reason}`;
}

/**
 * Efferent copy's phrases: off, looking for sinks, or its sinks and the
 * peers that are not (with why).
 *
 * @param efferent Where efferent copy stands.
 * @param mcpJson Where the sinks are looked for.
 * @returns The phrases.
 */
export function efferentParts(efferent: HostStatus["efferent_copy"], mcpJson?: string): string[] {
  if (efferent.state === "off") return ["efferent copy off"];
  if (efferent.state === "discovering") {
    return [
      `efferent copy on: looking for sinks${
        mcpJson ? ` in ${mcpJson}` : ""
      } (calls are held until then: ${efferent.held})`,
    ];
  }
  const names = efferent.sinks.map((sink) => `${sink.name}${sink.connected ? "" : " (down)"}`);
  const parts = [
    `efferent copy: ${names.length} sink${names.length === 1 ? "" : "s"}${
      names.length > 0 ? ` (${names.join(", ")})` : ""
    }`,
  ];
  if (efferent.not_sinks.length > 0) {
    parts.push(
      `not sinks: ${
        efferent.not_sinks.map((peer) => `"${peer.name}" (${peer.reason})`).join(", ")
      }`,
    );
  }
  if (efferent.held_dropped > 0) {
    parts.push(`${efferent.held_dropped} copies made before discovery were dropped`);
  }
  return parts;
}
