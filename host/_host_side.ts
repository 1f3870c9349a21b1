/**
 * The host's own side: the sandbox that runs programs, the network the web
 * tools reach the web through, the status they and the tool workers make,
 * and the host-side tools that read them.
 *
 * @module
 */

import type { HostStatus } from "../tools/observe/observation.ts";
import { launchStatus } from "./launch_status.ts";
import type { HostConfig, TelemetrySettings } from "./config/mod.ts";
import type { HostLogger } from "./logger.ts";
import { hostSideTools, type ShownFamilies, type UpstreamProvider } from "./providers/mod.ts";
import type { HostToolProvider } from "./providers/host_tools.ts";
import {
  type AnchorStore,
  observationOf,
  type SessionLog,
  SessionNotes,
  type Sinks,
  TodoFileStore,
} from "./state/mod.ts";
import type { Observation } from "../tools/observe/observation.ts";
import type { WorkerPool } from "./workers/mod.ts";
import { type BwrapSandbox, sandboxFor } from "./sandbox/mod.ts";
import { NetworkService, networkStatus, whyNoWorker } from "./network/mod.ts";

/** What {@linkcode hostSide} makes. */
export interface HostSide {
  /** The network, or null when the web tools are off. */
  network: NetworkService | null;
  /** What is in effect now. */
  status: () => HostStatus;
  /** What the observation tools read. */
  observation: Observation;
  /** The host-side tools. */
  hostTools: HostToolProvider;
  /** What the host-side tools keep that the Hook API reads: the todo list, a human's notes. */
  keeps: { todos: TodoFileStore; notes: SessionNotes };
}

/** The host-side tools, and the services and status they read: the sandbox, the network, the observation. */
export async function hostSide(
  config: HostConfig,
  logger: HostLogger,
  parts: {
    pool: WorkerPool;
    sinks: Sinks;
    upstreams: readonly UpstreamProvider[];
    anchors: AnchorStore;
    sessions: SessionLog;
    shown: ShownFamilies;
    now: () => Date;
  },
): Promise<HostSide> {
  const { pool, sinks, upstreams, sessions } = parts;
  const sandbox = await sandboxFor(config, pool, sessions);
  const network = config.net && whyNoWorker() === null ? new NetworkService(config.net) : null;
  const status = statusOf(config, pool, sinks, upstreams, { sandbox, network });
  const observation = observationOf(sinks, parts.anchors, status, parts.now);
  const todos = await TodoFileStore.open(config.policy.stateDir, { logger });
  const notes = new SessionNotes();
  const services = { observation, sandbox, sessions, network, todos, notes };
  return {
    network,
    status,
    observation,
    hostTools: hostSideTools(config, logger, services, parts.shown),
    keeps: { todos, notes },
  };
}

/** What is in effect now: confinement, ripgrep, the sandbox, the network, efferent copy, upstream servers, warnings. */
function statusOf(
  config: HostConfig,
  pool: WorkerPool,
  sinks: Sinks,
  upstreams: readonly UpstreamProvider[],
  services: { sandbox: BwrapSandbox; network: NetworkService | null },
): () => HostStatus {
  const network = services.network?.status ?? networkStatus(config.net);
  const launch = launchStatus();
  return () => ({
    launch,
    landlock: pool.landlock,
    ripgrep: pool.ripgrep,
    sandbox: services.sandbox.status,
    network,
    efferent_copy: sinks.efferent?.status() ?? { state: "off" },
    upstreams: upstreams.map((upstream) => upstream.status()),
    workers: { restarts: pool.restarts },
    telemetry: config.telemetry
      ? { state: "on", ...pickExport(config.telemetry) }
      : { state: "off" },
    warnings: [...config.warnings],
  });
}

/** Where spans and metrics go, and who said so (the status shows it). */
function pickExport(
  settings: TelemetrySettings,
): Pick<TelemetrySettings, "traces" | "metrics" | "from"> {
  return { traces: settings.traces, metrics: settings.metrics, from: settings.from };
}
