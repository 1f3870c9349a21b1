/**
 * What the host observes of its calls, made at start: the interaction log,
 * efferent copy (its peers found in the background), call statistics, and
 * the observation service the observation tools read.
 *
 * @module
 */

import { EfferentCopy } from "../../sinks/efferent.ts";
import { InteractionLog, logReader } from "../../sinks/interaction_log.ts";
import type { CallObserver, Sink } from "../../tools/calls.ts";
import type { SubprocessLog } from "../../tools/sandbox.ts";
import type { HostStatus, Observation } from "../../tools/observe/observation.ts";
import { efferentParts } from "../../tools/observe/status_phrases.ts";
import type { HostConfig } from "../config/mod.ts";
import { efferentCopyEnabled, selfEntries } from "../config/mod.ts";
import type { HostLogger } from "../logger.ts";
import { peerLaunch } from "../sandbox/mod.ts";
import type { AnchorStore } from "./anchors.ts";
import { PerformanceStats } from "./performance.ts";

/** Options for {@linkcode openSinks}. */
export interface SinkOptions {
  /** The clock of the log. */
  now: () => Date;
  /** Efferent copy on or off, instead of the environment's switch. */
  efferentCopy?: boolean | undefined;
  /** Whether a tool may change things (over its caps, the log keeps those calls longest). */
  writes: (tool: string) => boolean;
  /** Whether a tool's calls are mirrored to efferent-copy peers. */
  mirrored: (tool: string) => boolean;
  /** Where the efferent-copy peers the host starts are recorded when they end (the session log). */
  sessions?: SubprocessLog;
}

/** The host's sinks and call statistics. */
export interface Sinks {
  /** The interaction log, unless it is off. */
  readonly log: InteractionLog | undefined;
  /** Efferent copy, when it is on. */
  readonly efferent: EfferentCopy | undefined;
  /** Per-tool statistics. */
  readonly stats: PerformanceStats;
  /** Every observer of calls, in the order they are told. */
  readonly observers: readonly CallObserver[];
  /** Resolves with the number of efferent-copy peers once discovery is done. */
  readonly ready: Promise<number>;
  /** Flushes every sink. */
  flush(): Promise<void>;
  /** Closes every sink: the log first, efferent copy once discovery is done. */
  close(): Promise<void>;
}

/**
 * Open the sinks the configuration asks for. Efferent copy observes from
 * the first call; discovery, in the background, says where to.
 *
 * @param config The configuration.
 * @param logger Where the host's events go.
 * @param options The clock, the efferent-copy switch, which tools write.
 * @returns The sinks.
 */
export function openSinks(config: HostConfig, logger: HostLogger, options: SinkOptions): Sinks {
  const log = config.log.enabled ? openLog(config, options) : undefined;
  const efferent = efferentCopyEnabled(options.efferentCopy)
    ? new EfferentCopy(undefined, config.log.redactKeys, { mirrored: options.mirrored })
    : undefined;
  const stats = new PerformanceStats();
  const sinks: Sink[] = [...(log ? [log] : []), ...(efferent ? [efferent] : [])];
  const ready = efferent
    ? discover(config, efferent, logger, options.sessions)
    : Promise.resolve(0);
  return {
    log,
    efferent,
    stats,
    observers: [...(log ? [log] : []), stats, ...(efferent ? [efferent] : [])],
    ready,
    flush: async () => {
      for (const sink of sinks) await sink.flush();
    },
    close: async () => {
      await log?.close();
      await ready;
      await efferent?.close();
    },
  };
}

function openLog(config: HostConfig, options: SinkOptions): InteractionLog {
  return new InteractionLog({
    stateDir: config.policy.stateDir,
    retentionDays: config.log.retentionDays,
    maxArgBytes: config.log.maxArgBytes,
    maxDayBytes: config.log.maxDayBytes,
    maxTotalBytes: config.log.maxTotalBytes,
    ...(config.log.redactKeys ? { redactKeys: config.log.redactKeys } : {}),
    writes: options.writes,
    now: options.now,
  });
}

/**
 * The host state the observation tools read.
 *
 * @param sinks The log and statistics.
 * @param anchors The anchors.
 * @param status What is in effect now.
 * @param now The clock.
 * @returns The observation service.
 */
export function observationOf(
  sinks: Sinks,
  anchors: AnchorStore,
  status: () => HostStatus,
  now: () => Date,
): Observation {
  return {
    ...logReader(sinks.log),
    stats: () => sinks.stats.snapshot(),
    startedAt: now(),
    anchors: () =>
      anchors.list().map((a) => ({
        key: a.key,
        chars: a.content.length,
        updated_at: a.updated_at,
      })),
    sinks: () => sinks.efferent?.health() ?? [],
    status,
    now,
  };
}

/**
 * Find the sinks in the background (discovery never delays serving; the
 * calls made meanwhile are held by `efferent`), then say what was found.
 *
 * @returns How many sinks there are, once known.
 */
async function discover(
  config: HostConfig,
  efferent: EfferentCopy,
  logger: HostLogger,
  subprocesses: SubprocessLog | undefined,
): Promise<number> {
  const launch = peerLaunch(config);
  if (launch.refused !== undefined) {
    efferent.ready([], [{ name: config.mcpJson, reason: launch.refused }]);
    logger.log("warn", efferentParts(efferent.status()).join("; "));
    return 0;
  }
  try {
    const { discoverSinks } = await import("../../sinks/discovery.ts");
    const { sinks, rejected } = await discoverSinks({
      mcpJson: config.mcpJson,
      peers: config.peers,
      selfEntry: selfEntries(),
      cwd: config.policy.roots[0]!,
      warn: (message) => logger.log("warn", message),
      ...(config.observeTimeoutMs ? { observeTimeoutMs: config.observeTimeoutMs } : {}),
      ...(subprocesses ? { subprocesses } : {}),
      ...(launch.launcher ? { launcher: launch.launcher } : {}),
    });
    efferent.ready(sinks, rejected);
    logger.log("info", efferentParts(efferent.status()).join("; "));
    return sinks.length;
  } catch (error) {
    efferent.ready([], [{ name: config.mcpJson, reason: `discovery failed: ${error}` }]);
    logger.log("warn", efferentParts(efferent.status()).join("; "));
    return 0;
  }
}
