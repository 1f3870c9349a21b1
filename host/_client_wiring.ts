/**
 * Clients' scopes as `createHost` wires them: a scope's tool workers start
 * as the host's do, with its policy; its shell sandbox mounts only its
 * roots; its host-side tools get the host's services but that sandbox, and
 * never the observation nor the session log's processes (a client limited to
 * some roots may not read what the host keeps of the others).
 *
 * @module
 */

import type { Policy } from "../security/policy.ts";
import { SANDBOX_SERVICE } from "../tools/sandbox.ts";
import { ClientScopes, type ToolFacts } from "./clients/mod.ts";
import type { HostConfig } from "./config/mod.ts";
import { spawnOptions } from "./first_worker.ts";
import type { HostLogger } from "./logger.ts";
import type { HostToolProvider, UpstreamProvider } from "./providers/mod.ts";
import type { ToolDescriptor } from "../tools/registry.ts";
import { classifier } from "./_approval_wiring.ts";
import { familyOf } from "./_host_parts.ts";
import type { CallScope } from "./providers/mod.ts";
import { sandboxFor } from "./sandbox/mod.ts";
import type { IdleWork, SessionLog } from "./state/mod.ts";
import { WorkerPool } from "./workers/mod.ts";

/** What the host keeps of every client's calls: the interaction log and statistics, the processes. */
const HOST_WIDE_SERVICES = ["observation", "sessions"];

/** What the host needs to serve clients with rights of their own. */
export interface ClientSide {
  /** The scopes of clients limited to some roots. */
  scopes: ClientScopes;
  /**
   * The host's `toolFacts` and `scopeOf`.
   *
   * @param tools Every tool as listed now.
   * @param toolsChanged Told when the tool list changes (each tool's classes are kept until then).
   */
  surface(tools: () => ToolDescriptor[], toolsChanged: Set<() => void>): {
    toolFacts(name: string): ToolFacts;
    scopeOf(roots: readonly string[]): Promise<CallScope>;
  };
}

/**
 * The host's client scopes (started at each one's first call), and what a client's rights judge.
 *
 * @param config The configuration.
 * @param parts The logger, session log, idle work, host-side tools, upstreams, tool workers.
 * @returns The scopes and the host's surface for clients.
 */
export function clientSide(
  config: HostConfig,
  parts: {
    logger: HostLogger;
    sessions: SessionLog;
    idle: IdleWork;
    hostTools: HostToolProvider;
    upstreams: readonly UpstreamProvider[];
    pool: WorkerPool;
  },
): ClientSide {
  const scopes = clientScopes(config, parts);
  return {
    scopes,
    surface: (tools, toolsChanged) => {
      // Asked for each tool a client lists and each call it makes: kept, as the approvals' are.
      const classesOf = classifier({ tools, upstreams: parts.upstreams, toolsChanged });
      return {
        toolFacts: (name) => {
          const family = familyOf(parts.pool, name)?.name;
          const classes = classesOf(name);
          return family === undefined ? { classes } : { classes, family };
        },
        scopeOf: (roots) => scopes.scopeOf(roots),
      };
    },
  };
}

/** The host's client scopes, started at each one's first call. */
function clientScopes(
  config: HostConfig,
  parts: { logger: HostLogger; sessions: SessionLog; idle: IdleWork; hostTools: HostToolProvider },
): ClientScopes {
  const { logger, sessions, idle, hostTools } = parts;
  return new ClientScopes(config.policy, {
    async start(policy: Policy, confineTo: Policy) {
      const pool = await WorkerPool.start(policy, {
        ...(await spawnOptions(config)),
        ...(confineTo === policy ? {} : { confineTo }),
        subprocesses: sessions,
        whileWaiting: () => idle.run(),
        size: config.workers,
        callTimeoutMs: config.callTimeoutMs,
        logger,
      });
      // The sandbox mounts the client's roots alone, whatever the workers resolve with.
      const sandbox = await sandboxFor({ ...config, policy: confineTo }, pool, sessions);
      const shared = hostTools.services();
      shared.set(SANDBOX_SERVICE, sandbox);
      for (const hostWide of HOST_WIDE_SERVICES) shared.delete(hostWide);
      return { scope: { policy, pool, shared }, close: () => pool.close() };
    },
  }, logger);
}
