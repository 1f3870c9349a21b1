/**
 * A host: the configuration, the tool workers, the dispatcher and its
 * observers, as one value. Several can live in one process.
 *
 * @module
 */

import type { Policy } from "../security/policy.ts";
import type { ToolDescriptor } from "../tools/registry.ts";
import type { ToolResult } from "../tools/tool.ts";
import { type ConfigOverrides, type HostConfig, loadConfig } from "./config.ts";
import {
  type CallContext,
  type CallObserver,
  Dispatcher,
  type ToolProvider,
} from "./dispatcher.ts";
import { type PoolLogger, WorkerPool } from "./worker_pool.ts";
import { assetPaths } from "./launcher.ts";

/** Options for {@linkcode createHost}. */
export interface HostOptions extends ConfigOverrides {
  /** A resolved config to use instead of loading one. */
  config?: HostConfig;
  /** Extra observers of every call. */
  observers?: CallObserver[];
  /** Where the host's own messages go (default: stderr). */
  logger?: PoolLogger;
}

/** A running host. */
export interface Host {
  /** The resolved configuration. */
  readonly config: HostConfig;
  /** The policy in force. */
  readonly policy: Policy;
  /** The dispatcher (for the gateway). */
  readonly dispatcher: Dispatcher;
  /** Where the host's messages go. */
  readonly logger: PoolLogger;
  /** Every tool, as clients see it. */
  list(): ToolDescriptor[];
  /**
   * Call a tool through the dispatcher.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param ctx Session, client, cancellation, progress.
   */
  call(name: string, args: unknown, ctx?: Partial<CallContext>): Promise<ToolResult>;
  /** Stop the workers. */
  close(): Promise<void>;
  /** Same as close, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Start a host: load the config, start the tool workers, wire the dispatcher.
 *
 * @param options Roots, config file, observers.
 * @returns The running host.
 * @example
 * ```ts
 * await using host = await createHost({ roots: ["/srv/project"] });
 * const result = await host.call("read_file", { path: "README.md" });
 * ```
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const config = options.config ?? (await loadConfig(options));
  const logger = options.logger ?? stderrLogger();
  const pool = await WorkerPool.start(config.policy, {
    size: config.workers,
    registry: config.tools,
    ripgrep: config.ripgrep,
    callTimeoutMs: config.callTimeoutMs,
    landlock: config.landlock,
    extraRead: await assetPaths(),
    logger,
  });
  const local: ToolProvider = {
    name: "local",
    list: () => pool.tools,
    call: (name, args, ctx) => {
      const call: Parameters<WorkerPool["call"]>[2] = {};
      if (ctx.signal) call.signal = ctx.signal;
      if (ctx.onProgress) call.onProgress = ctx.onProgress;
      return pool.call(name, args, call);
    },
  };
  const dispatcher = new Dispatcher(
    [local],
    [...(options.observers ?? [])],
    (error) => logger.log("warn", "A call observer failed", String(error)),
  );
  const close = () => {
    pool.close();
    return Promise.resolve();
  };
  return {
    config,
    policy: config.policy,
    dispatcher,
    logger,
    list: () => dispatcher.list(),
    call: (name, args, ctx = {}) =>
      dispatcher.call(name, args, { session: "local", client: "local", ...ctx }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A logger that writes one line per event to stderr (never stdout: that is the MCP channel). */
export function stderrLogger(): PoolLogger {
  const encoder = new TextEncoder();
  return {
    log(level, message, detail) {
      const line = `toolhost ${level}: ${message}${detail ? `\n${detail}` : ""}\n`;
      Deno.stderr.writeSync(encoder.encode(line));
    },
  };
}
