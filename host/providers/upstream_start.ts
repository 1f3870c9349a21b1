/**
 * The configured upstream servers (`upstream.mcpServers`), started together,
 * in the order clients list their tools: by server name.
 *
 * @module
 */

import { type HostConfig, sandboxed } from "../config/mod.ts";
import type { HostLogger } from "../logger.ts";
import type { SubprocessLog } from "../../tools/sandbox.ts";
import { type ServerSandbox, serverSandbox } from "../sandbox/mod.ts";
import { type UpstreamOptions, UpstreamProvider } from "./upstream.ts";

/**
 * Connect to every configured upstream, at once and in parallel. One that is
 * not reachable does not hold the host up: it is retried in the background,
 * and its tools appear (with a list-changed notice) once it answers.
 *
 * @param config The configuration (`upstream.mcpServers`).
 * @param logger Where events go.
 * @param options Called when any upstream's tool list changes; where their processes are recorded.
 * @returns The providers, sorted by server name (code-unit order, as their tools are).
 */
export async function startUpstreams(
  config: HostConfig,
  logger: HostLogger,
  options: { onListChanged: () => void; subprocesses?: SubprocessLog },
): Promise<UpstreamProvider[]> {
  const { onListChanged, subprocesses } = options;
  const servers = Object.entries(config.upstream).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let sandbox: ServerSandbox | undefined;
  return await Promise.all(
    servers.map(([name, entry]) => {
      const { timeoutMs, allowTools, denyTools, sandbox: _asked, ...spec } = entry;
      const each: UpstreamOptions = {
        name,
        spec,
        cwd: config.policy.roots[0]!,
        logger,
        onListChanged,
        subprocesses,
      };
      const confined = sandboxed(entry, config);
      if (confined !== null) {
        sandbox ??= serverSandbox(config);
        if (sandbox.launcher) each.launcher = sandbox.launcher(confined.network);
        else {
          each.refused =
            `not started: it must run in the sandbox, which cannot run here: ${sandbox.reason}`;
          logger.log("warn", `Upstream "${name}" ${each.refused}`);
        }
      }
      if (timeoutMs !== undefined) each.timeoutMs = timeoutMs;
      if (allowTools) each.allow = allowTools;
      if (denyTools) each.deny = denyTools;
      return UpstreamProvider.connect(each);
    }),
  );
}
