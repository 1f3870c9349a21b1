/**
 * The parts `createHost` starts and stops besides its wiring: the tool
 * workers, the upstream servers, the idle work, and the order they close in.
 *
 * @module
 */

import { type HostConfig, unknownToolNames } from "./config/mod.ts";
import { FAMILIES } from "../tools/families.ts";
import { type FirstWorker, spawnOptions } from "./first_worker.ts";
import type { HostLogger } from "./logger.ts";
import type { Dispatcher, UpstreamProvider } from "./providers/mod.ts";
import { IdleWork, type SessionLog, type Sinks } from "./state/mod.ts";
import type { AnchorStore } from "./state/mod.ts";
import { WorkerPool } from "./workers/mod.ts";
import type { SubprocessLog } from "../tools/sandbox.ts";
import type { AuditFile } from "./approvals/mod.ts";
import type { NetworkService } from "./network/mod.ts";
import type { ClientScopes } from "./clients/mod.ts";
import { familyNamed } from "../tools/families.ts";
import type { ToolFamily } from "../tools/family.ts";
import { HOST_TOOL_FAMILIES } from "../tools/host_tools.ts";

/**
 * Stop the workers (their calls in flight end as shut down), then flush the
 * logs and the anchors; upstream servers close meanwhile (then the session log).
 */
export async function closeParts(parts: {
  pool: WorkerPool;
  upstreams: readonly UpstreamProvider[];
  dispatcher: Dispatcher;
  sinks: Sinks;
  anchors: AnchorStore;
  sessions: SessionLog;
  held: { audit: AuditFile } | null;
  network: NetworkService | null;
  idle: IdleWork;
}, scopes: ClientScopes): Promise<void> {
  parts.pool.close();
  const scopesClosed = scopes.close();
  parts.network?.close();
  const upstreamsClosed = Promise.all(parts.upstreams.map((upstream) => upstream.close()));
  // One turn, so that the calls the pool just answered reach the log before it closes.
  await new Promise((resolve) => setTimeout(resolve, 0));
  parts.dispatcher.settle();
  parts.idle.close();
  await parts.sinks.close();
  await parts.sessions.flush();
  await parts.anchors.flush();
  await upstreamsClosed;
  await scopesClosed;
  await parts.sessions.close();
  await parts.held?.audit.flush();
}

/** The host's work for an idle moment (`state/idle_work.ts`): observers told, and the session log's lines. */
export function idleWork(logger: HostLogger, sessions: SessionLog): IdleWork {
  const idle = new IdleWork((error) => logger.log("warn", "Work after a call failed", `${error}`));
  idle.each(() => void sessions.flush());
  return idle;
}

/** The tool workers, with the policy's permissions and the files tool code reads. */
export async function startPool(
  config: HostConfig,
  parts: {
    logger: HostLogger;
    sessions: SessionLog;
    idle: IdleWork;
    first: FirstWorker | undefined;
  },
): Promise<WorkerPool> {
  const { logger, sessions, idle, first } = parts;
  const ahead = first?.config === config ? first.spawned : undefined;
  if (first && !ahead) first.spawned.worker.terminate(); // started for another configuration
  const options = {
    ...(await spawnOptions(config)),
    subprocesses: sessions,
    // While a worker runs a call: the last call's observers, the session log's queued lines.
    whileWaiting: () => idle.run(),
    size: config.workers,
    callTimeoutMs: config.callTimeoutMs,
    logger,
  };
  const pool = await WorkerPool.start(config.policy, options, ahead);
  reportUnknownNames(config, pool, logger);
  return pool;
}

/** The upstream servers; the MCP client code reads the environment when it loads, so only when some are configured. */
export async function loadUpstreams(
  config: HostConfig,
  logger: HostLogger,
  onListChanged: () => void,
  subprocesses: SubprocessLog,
): Promise<UpstreamProvider[]> {
  if (Object.keys(config.upstream).length === 0) return [];
  const { startUpstreams } = await import("./providers/upstream_start.ts");
  return await startUpstreams(config, logger, { onListChanged, subprocesses });
}

/** The family a tool belongs to: a local or host-side tool's (an upstream's tools have none). */
export function familyOf(pool: WorkerPool, tool: string): ToolFamily | undefined {
  const hostSide = HOST_TOOL_FAMILIES[tool];
  return hostSide === undefined ? pool.familyOf(tool) : familyNamed(hostSide);
}

/** Each name in the `tools` section that is no tool or family: one line, and the host serves on. */
function reportUnknownNames(config: HostConfig, pool: WorkerPool, logger: HostLogger): void {
  const known = {
    tools: [...Object.keys(pool.families), ...Object.keys(HOST_TOOL_FAMILIES)],
    families: FAMILIES.map((family) => family.name),
  };
  for (const line of unknownToolNames(config.tools, known)) logger.log("warn", line);
}
