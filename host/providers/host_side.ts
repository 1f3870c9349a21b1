/**
 * The host-side tools as the host serves them: those config leaves on; a
 * family that runs programs only where the sandbox runs them and finds its
 * programs; the web tools only where the network is on; a family waiting for its marker (`.git`) callable but not
 * listed; each with the host services it reads.
 *
 * @module
 */

import { familyNamed } from "../../tools/families.ts";
import type { ToolFamily } from "../../tools/family.ts";
import { HOST_TOOL_FAMILIES, HOST_TOOLS } from "../../tools/host_tools.ts";
import type { Observation } from "../../tools/observe/observation.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Sandbox } from "../../tools/sandbox.ts";
import { type Network, NETWORK_SERVICE } from "../../tools/network.ts";
import type { HostConfig } from "../config/mod.ts";
import type { HostLogger } from "../logger.ts";
import type { SessionLog } from "../state/mod.ts";
import type { TodoStore } from "../../tools/todo/todo.ts";
import type { HumanNotes } from "../../tools/observe/bootstrap_body_state.ts";
import { HostToolProvider } from "./host_tools.ts";
import type { ShownFamilies } from "./shown_families.ts";

/** How long past its programs' own time limits a call may take (the guard, the log). */
const PROGRAM_GRACE_MS = 10_000;

/** The host state and services the host-side tools read. */
export interface HostServices {
  /** The interaction log, statistics, anchors, status. */
  observation: Observation;
  /** Runs programs (run_shell, git, bd). */
  sandbox: Sandbox;
  /** The session's log (read_interactions shows its processes). */
  sessions: SessionLog;
  /** The web tools' network, or null when `net` is false. */
  network: Network | null;
  /** The todo list (`todos.json`). */
  todos: TodoStore;
  /** A human's notes to the session (bootstrap_body_state shows them). */
  notes: HumanNotes;
}

/**
 * The host-side tools that config leaves on, with the services they read.
 *
 * @param config The configuration.
 * @param logger Where internals go.
 * @param services The host state and the sandbox.
 * @param shown Which families are listed.
 * @returns The provider.
 */
export function hostSideTools(
  config: HostConfig,
  logger: HostLogger,
  services: HostServices,
  shown: ShownFamilies,
): HostToolProvider {
  const { sandbox, network, ...rest } = services;
  const runs = (family: ToolFamily | undefined) =>
    (family?.reachesNetwork !== true || network !== null) &&
    (family?.runsPrograms === undefined ||
      (sandbox.status.active &&
        family.runsPrograms.every((name) => name in sandbox.status.programs)));
  const tools = HOST_TOOLS.filter((tool) => {
    const family = HOST_TOOL_FAMILIES[tool.name];
    return shown.callable(family) && runs(familyNamed(family));
  });
  return new HostToolProvider(tools, {
    policy: config.policy,
    logger,
    callTimeoutMs: config.callTimeoutMs,
    // Programs' own time limits may add up to more than a call's; the sandbox stops them.
    deadlines: deadlines(tools, sandbox.status.timeoutS),
    listed: (name) => shown.listed(HOST_TOOL_FAMILIES[name]),
    iconOf: (name) => familyNamed(HOST_TOOL_FAMILIES[name])?.icon,
    services: {
      ...rest,
      sandbox,
      ...(network ? { [NETWORK_SERVICE]: network } : {}),
      sessions: services.sessions.reader(),
    },
    registry: config.tools,
  });
}

/** Each tool's call limit where its family's programs may take longer than a call. */
function deadlines(
  tools: readonly Tool[],
  timeoutS: { readonly default: number; readonly max: number },
): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const tool of tools) {
    const limit = familyNamed(HOST_TOOL_FAMILIES[tool.name])?.callLimitMs?.(timeoutS);
    if (limit !== undefined) limits[tool.name] = limit + PROGRAM_GRACE_MS;
  }
  return limits;
}
