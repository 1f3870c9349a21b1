/**
 * MCP servers named by project content — an upstream server in a trusted
 * `toolhost.json` inside a root, a peer in a trusted `.mcp.json` there, or
 * one the user's own config asks to confine (`"sandbox": true`) — start
 * inside the sandbox `run_shell` uses: the roots read-only, the state
 * directory and every hidden entry out of sight, no network unless the
 * entry grants it, an environment built from nothing but the sandbox's
 * (`PATH`, `HOME`, `LANG`, `TERM`) and the entry's own `env`, under the
 * sandbox's rlimits, dying with the host. A file such a server runs or
 * imports can then do no more than the agent could already.
 *
 * @module
 */

import * as posix from "node:path/posix";
import { isInside } from "../../security/policy.ts";
import { bwrapArgs, type HiddenPath, serverScript } from "../../security/sandbox.ts";
import type { Launch, Launcher } from "../../sinks/mcp_transport.ts";
import type { PeerEntry } from "../../sinks/peers.ts";
import { type HostConfig, sandboxNetwork } from "../config/mod.ts";
import { loadPlan } from "./plan.ts";

/** What starts servers in the sandbox, or why none can. */
export type ServerSandbox =
  | { readonly launcher: (network: boolean) => Launcher; readonly reason?: undefined }
  | { readonly launcher?: undefined; readonly reason: string };

/**
 * The sandbox for servers, from the launcher's plan.
 *
 * @param config The configuration (the roots, state directory and hidden entries).
 * @returns A launcher per network setting, or why servers cannot be sandboxed here.
 */
export function serverSandbox(config: HostConfig): ServerSandbox {
  const { plan, reason } = loadPlan(config);
  if (reason !== undefined) return { reason };
  if (plan.bwrap === null) return { reason: `bwrap is not there: ${plan.reason ?? "not found"}` };
  const bwrap = plan.bwrap;
  if (Deno.permissions.querySync({ name: "run", command: bwrap }).state !== "granted") {
    return { reason: `this process may not run ${bwrap} (its flags predate the sandbox)` };
  }
  const { policy } = config;
  const hidden: HiddenPath[] = [...plan.hidden, ...policy.hiddenEntries];
  return {
    launcher: (network) => (launch: Launch): Launch => {
      const cwd = posix.resolve(policy.roots[0]!, launch.cwd);
      const env = { ...plan.env, PATH: plan.path, HOME: plan.home, ...launch.env };
      const layout = bwrapArgs({ ...plan, network, hidden }, {
        roots: policy.roots,
        write: false,
        protectedPaths: [],
        stateDir: policy.stateDir,
        cwd: isInside(cwd, policy.roots) ? cwd : policy.roots[0]!,
        env,
      });
      const script = [plan.shell, "-c", serverScript(plan.limits), "toolhost"];
      return {
        command: bwrap,
        args: [...layout, ...script, launch.command, ...launch.args],
        // bwrap itself gets none (the SDK adds its default set); the server's is set inside.
        env: {},
        cwd: "/",
      };
    },
  };
}

/** How efferent copy's peers in `.mcp.json` start, or why none may. */
export type PeerLaunch =
  | { readonly launcher?: (entry: PeerEntry) => Launcher; readonly refused?: undefined }
  | { readonly launcher?: undefined; readonly refused: string };

/**
 * How `.mcp.json`'s peers start: as listed when the file is the user's own
 * (outside every root); in the sandbox when it lies inside a root and the
 * user trusted it (an entry's `"sandbox": {"network": true}` shares the
 * network); not at all when it lies inside a root untrusted.
 *
 * @param config The configuration (`.mcp.json`'s standing).
 * @returns The launcher, or why the peers are not started.
 */
export function peerLaunch(config: HostConfig): PeerLaunch {
  const { mcpJson } = config.trust;
  if (mcpJson.from === "user") return {};
  if (mcpJson.from === "untrusted") {
    return {
      refused:
        `${mcpJson.path} lies inside a root and is not trusted, so its peers are not started; review it, then run: ${config.trust.command}`,
    };
  }
  const sandbox = serverSandbox(config);
  if (!sandbox.launcher) {
    return {
      refused: `its peers must run in the sandbox, which cannot run here: ${sandbox.reason}`,
    };
  }
  return {
    launcher: (entry) => sandbox.launcher(sandboxNetwork(entry)),
  };
}
