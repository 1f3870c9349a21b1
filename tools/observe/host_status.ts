/**
 * What is in effect in the host and what is not, as the observation tools
 * and the start-up line report it: Landlock, ripgrep, the sandbox, the
 * network, efferent copy and its sinks, upstream servers, the workers,
 * telemetry, how the process was launched.
 *
 * @module
 */

import type { NetworkStatus } from "../network.ts";
import type { SandboxStatus } from "../sandbox.ts";

/** A sink's health, as bootstrap and host performance show it. */
export interface SinkStatus {
  /** Its name in `.mcp.json`. */
  name: string;
  /** Whether its connection is up (false while it is being reconnected). */
  connected: boolean;
  /** Last successful observe (UTC ISO), or null. */
  last_success: string | null;
  /** Calls dropped (queue full, or the sink is reconnecting). */
  drops: number;
  /** Calls the sink did not answer in time (a slow or busy sink). */
  timeouts: number;
  /** Calls that failed otherwise (an error answer, a lost connection). */
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
