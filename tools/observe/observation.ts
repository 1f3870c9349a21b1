/**
 * What the observation tools read: the host's own log, statistics, anchors
 * and sinks. These tools run in the host's process (not the tool worker);
 * the host gives them this through `ctx.shared("observation")`.
 *
 * @module
 */

import type { SandboxStatus } from "../sandbox.ts";
import type { NetworkStatus } from "../network.ts";
import { ToolError } from "../../security/errors.ts";
import type { ToolContext } from "../tool.ts";
import type {
  DayScan,
  DroppedCalls,
  Interaction as LoggedInteraction,
  InteractionPage,
  LogReader,
  LogUsage,
  ReadOptions,
  SkippedLines,
} from "../interactions.ts";

export type {
  DayScan,
  DroppedCalls,
  InteractionPage,
  LoggedInteraction,
  LogUsage,
  ReadOptions,
  SkippedLines,
};

/**
 * Per-tool latency statistics. Latency is a call's own time: a wait for a
 * human's approval is not in it, and a call the approval refused adds none.
 */
export interface ToolStats {
  /** Calls since start. */
  count: number;
  /** Calls that ended in an error. */
  errors: number;
  /** Calls that waited for a human's approval (that wait is not in the latency). */
  waited: number;
  /** Median latency (ms). */
  p50_ms: number;
  /** 95th percentile latency (ms). */
  p95_ms: number;
  /** Slowest call (ms). */
  max_ms: number;
}

/** A sink's health. */
export interface SinkStatus {
  /** Its name in `.mcp.json`. */
  name: string;
  /** Whether its connection is up. */
  connected: boolean;
  /** When it last took an observe call (UTC ISO), or null. */
  last_success: string | null;
  /** Calls dropped because its queue was full. */
  drops: number;
  /** Calls it did not answer in time. */
  timeouts: number;
  /** Calls that failed otherwise. */
  failures: number;
}

/**
 * How the served process was launched: from its launch record
 * (`bin/toolhost start` ran the line the launcher worked out before), or by
 * the launcher, and then whether its line was recorded for the next start.
 */
export type LaunchStatus =
  | { from: "record" }
  | { from: "launcher"; recorded: boolean; reason?: string }
  | { from: "unknown" };

/** What is in effect in the host and what is not (never a silent fallback). */
export interface HostStatus {
  /** How this process was launched (`host/launch_status.ts`). */
  launch: LaunchStatus;
  /** Landlock in the tool workers. */
  landlock: { active: boolean; abi: number; reason?: string; nativeReads?: boolean };
  /** ripgrep in the tool workers (searches use the JS walker when it is not active). */
  ripgrep: { active: boolean; path: string | null; version?: string; reason?: string };
  /** The sandbox for programs (run_shell, git, bd): bubblewrap, unconfined, or off and why. */
  sandbox: SandboxStatus;
  /** The web tools' network worker: what it may reach, or why it is off. */
  network: NetworkStatus;
  /** Efferent copy: off, or its sinks and the peers that are not. */
  efferent_copy: { state: "off" } | {
    state: "discovering" | "on";
    sinks: SinkStatus[];
    not_sinks: Array<{ name: string; reason: string }>;
    held: number;
    held_dropped: number;
  };
  /** Upstream servers; `renamed`: a tool's own name by the name it is listed under to fit MCP's rule. */
  upstreams: Array<{
    name: string;
    state: "connected" | "down";
    tools: number;
    error?: string;
    renamed?: Record<string, string>;
  }>;
  /** The tool workers: how many were started in place of one that crashed, hung or would not stop. */
  workers: { restarts: number };
  /** OpenTelemetry export over OTLP/HTTP: off, or where spans and metrics go and who said so. */
  telemetry: { state: "off" } | {
    state: "on";
    traces: string;
    metrics: string;
    from: "config" | "environment";
  };
  /** What in the configuration was ignored, and why. */
  warnings: string[];
}

/** The host state the observation tools read. */
export interface Observation extends LogReader {
  /** Per-tool statistics since start. */
  stats(): Record<string, ToolStats>;
  /** When the host started. */
  readonly startedAt: Date;
  /** The open context anchors (index only). */
  anchors(): Array<{ key: string; chars: number; updated_at: string }>;
  /** The efferent-copy sinks. */
  sinks(): SinkStatus[];
  /** What is in effect and what is not. */
  status(): HostStatus;
  /** The clock. */
  now(): Date;
}

/**
 * The observation the host gave this context.
 *
 * @param ctx The tool context.
 * @returns The observation.
 * @throws {ToolError} `unsupported` outside the host's process.
 */
export function observation(ctx: ToolContext): Observation {
  return ctx.shared<Observation>("observation", () => {
    throw new ToolError("unsupported", "Observation tools run only in the host's own process");
  });
}

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

/**
 * What a read of the log skipped, as a phrase.
 *
 * @param skipped The counts.
 * @returns E.g. `3 log lines skipped (2 corrupt or torn, 1 too long to read)`, or undefined.
 */
export function skippedPhrase(skipped: SkippedLines): string | undefined {
  const lines = skipped.malformed + skipped.too_long;
  const parts: string[] = [];
  if (lines > 0) {
    const why = [
      ...(skipped.malformed ? [`${skipped.malformed} corrupt or torn`] : []),
      ...(skipped.too_long ? [`${skipped.too_long} too long to read`] : []),
    ];
    parts.push(`${plural(lines, "log line")} skipped (${why.join(", ")})`);
  }
  if (skipped.unreadable > 0) {
    parts.push(`${plural(skipped.unreadable, "log file")} could not be read`);
  }
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * What the log's caps dropped, as a phrase.
 *
 * @param dropped The drops.
 * @returns E.g. `120 dropped by the log's size cap: 118 read-only, 2 failed, 0 writes; day cap`.
 */
export function droppedPhrase(dropped: DroppedCalls): string {
  const why = Object.keys(dropped.why).map((each) => each.replace("_", " ")).join(", ");
  return `${dropped.calls} dropped by the log's size cap: ${dropped.read} read-only, ${dropped.failed} failed, ${
    plural(dropped.write, "write")
  }${why ? `; ${why}` : ""}`;
}

/**
 * A byte count for people.
 *
 * @param bytes The count.
 * @returns E.g. `64 MiB`, `1.5 KiB`, `12 B`.
 */
export function byteSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
