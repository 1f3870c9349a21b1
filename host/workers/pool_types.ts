/**
 * What the worker pool is started with, and what one call to it takes and
 * gives back.
 *
 * @module
 */

import type { Policy } from "../../security/policy.ts";
import type { RegistryOptions } from "../../tools/registry.ts";
import type { SubprocessLog } from "../../tools/sandbox.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { RipgrepSetting } from "../config/mod.ts";
import type { HostLogger } from "../logger.ts";
import type { FileChange, SeenFiles, WatchedFile } from "./protocol.ts";

/** Options for `WorkerPool.start`. */
export interface PoolOptions {
  /**
   * How many workers (at least 1), which is also how many calls run at once. The first starts
   * with the pool, each other one when a call would otherwise wait behind busy workers.
   */
  size: number;
  /** Which tools are on. */
  registry: RegistryOptions;
  /** The ripgrep binary tools may use (each worker checks that it runs), or why none. */
  ripgrep: RipgrepSetting;
  /** Extra read-only files the tools need. */
  extraRead?: readonly string[];
  /** A call running longer than this (from when a worker takes it) is stopped and its worker replaced. */
  callTimeoutMs: number;
  /** Confine the workers' threads with Landlock where the kernel has it (default true). */
  landlock?: boolean;
  /**
   * The policy whose paths Landlock confines the workers' threads to, when it is not the one they
   * resolve paths with (a client scope under the test-only fault of `host/clients/scopes.ts`).
   */
  confineTo?: Policy;
  /** A module exporting `TOOLS` to run instead of the built-in list (for tests). */
  toolsModule?: URL;
  /** Where events go. */
  logger: HostLogger;
  /** Where the processes the tools run themselves (ripgrep) are recorded: the session log. */
  subprocesses?: SubprocessLog;
  /** Work for the host's thread while it waits for a lone call's answer (`state/idle_work.ts`). */
  whileWaiting?: () => void;
}

/** What starting one worker needs of the pool's options (its permissions and init message). */
export type SpawnOptions = Pick<
  PoolOptions,
  "registry" | "ripgrep" | "extraRead" | "landlock" | "toolsModule" | "confineTo"
>;

/** How one call is followed. */
export interface PoolCall {
  /** Aborted when the client cancels. */
  signal?: AbortSignal;
  /** Progress from the tool. */
  onProgress?: (progress: number, total?: number, message?: string) => void;
  /** What the session last read: editors refuse files that changed since. */
  expect?: Record<string, string>;
  /** Files the session read: the worker checks them for changes before the tool runs. */
  watch?: WatchedFile[];
}

/** A finished call: the result and the paths it touched. */
export interface PoolResult {
  /** The tool's result. */
  result: ToolResult;
  /** Display paths the tool touched. */
  paths: string[];
  /** Whole files the call read and wrote. */
  seen?: SeenFiles;
  /** Watched files that changed by other means, found before the tool ran. */
  changes?: FileChange[];
  /** Milliseconds it waited in the queue before a worker took it (telemetry's span of the wait). */
  queuedMs?: number;
}
