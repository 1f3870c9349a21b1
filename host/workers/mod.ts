/**
 * The tool workers: a pool of threads that run the local tools under the
 * policy's Deno permissions (and Landlock, where the kernel has it), and the
 * messages the host exchanges with them. Other folders import from here.
 *
 * @example
 * ```ts
 * import { WorkerPool } from "./mod.ts";
 * import { resolvePolicy } from "../../security/policy.ts";
 * import { stderrLogger } from "../logger.ts";
 *
 * const policy = await resolvePolicy({ roots: ["/srv/project"] });
 * const pool = await WorkerPool.start(policy, {
 *   size: 2,
 *   registry: {},
 *   ripgrep: { path: null, reason: "not configured" },
 *   callTimeoutMs: 30_000,
 *   logger: stderrLogger(),
 * });
 * const { result } = await pool.call("read_file", { path: "README.md" });
 * pool.close();
 * ```
 *
 * @module
 */

export { WorkerPool } from "./pool.ts";
export type { PoolCall, PoolOptions, PoolResult } from "./pool_types.ts";
export type {
  FileChange,
  Probe,
  RipgrepStatus,
  SeenFile,
  SeenFiles,
  WatchedFile,
} from "./protocol.ts";
export { MAX_TRACKED } from "./watch.ts";
export { assetPaths } from "./asset_paths.ts";
