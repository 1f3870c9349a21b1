/**
 * The first tool worker, started as soon as the configuration is known. The
 * served process (`cli/serve_main.ts`) starts it before it loads the host's
 * own modules, so that the worker loading its tools and the host loading the
 * rest run at once; {@linkcode createHost} then takes it as its pool's first
 * worker. What a worker is started with is said here once, for both.
 *
 * @module
 */

import type { HostConfig } from "./config/mod.ts";
import { assetPaths } from "./workers/asset_paths.ts";
import { type Spawned, spawnWorker } from "./workers/_spawn.ts";
import type { SpawnOptions } from "./workers/pool_types.ts";

/** A tool worker started ahead of its host, for the configuration it was started with. */
export interface FirstWorker {
  /** The configuration (a host with another one starts its own worker). */
  readonly config: HostConfig;
  /** The worker. */
  readonly spawned: Spawned;
}

/**
 * What a tool worker is started with under a configuration: its tools,
 * ripgrep, Landlock, and the files outside the roots tool code reads.
 *
 * @param config The resolved configuration.
 * @returns The options.
 */
export async function spawnOptions(config: HostConfig): Promise<SpawnOptions> {
  return {
    registry: config.tools,
    ripgrep: config.ripgrep,
    landlock: config.landlock,
    extraRead: await assetPaths(),
  };
}

/**
 * Start a host's first tool worker now. A worker that fails to start says so
 * to the host that takes it, never as an error nobody handled.
 *
 * @param config The resolved configuration.
 * @returns The worker, loading.
 */
export async function startFirstWorker(config: HostConfig): Promise<FirstWorker> {
  const spawned = spawnWorker(config.policy, await spawnOptions(config));
  // Marked as handled here: the pool that takes the worker awaits `ready` and gets its error.
  spawned.ready.catch(() => {});
  return { config, spawned };
}
