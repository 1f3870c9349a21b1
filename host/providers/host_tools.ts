/**
 * Tools that run in the host's own process rather than the tool worker,
 * because what they read is host state: the interaction log, call
 * statistics, anchors, sinks, the todo list. They touch no project file.
 *
 * @module
 */

import { Anchor as DirAnchor } from "../../security/anchored.ts";
import type { Policy } from "../../security/policy.ts";
import { Resolver } from "../../security/resolver.ts";
import { SafeFs } from "../../security/safe_fs.ts";
import { type ToolIcon, withIcons } from "../../tools/icons.ts";
import {
  errorResult,
  Registry,
  type RegistryOptions,
  type ToolDescriptor,
} from "../../tools/registry.ts";
import { type Tool, type ToolContext, ToolError, type ToolResult } from "../../tools/tool.ts";
import type { CallContext, ProviderResult, ToolProvider } from "./dispatcher.ts";
import type { CallPhase } from "../../tools/calls.ts";
import { type Network, NETWORK_SERVICE } from "../../tools/network.ts";
import { timedNetwork } from "./_timed_network.ts";
import type { HostLogger } from "../logger.ts";

/** Options for {@linkcode HostToolProvider}. */
export interface HostToolOptions {
  /** The policy in force (the tools describe it; they get no access to its roots). */
  policy: Policy;
  /** Where internals go. */
  logger: HostLogger;
  /** A call running longer is stopped with `timeout`, as a worker's call is. */
  callTimeoutMs: number;
  /** Tools whose calls may run longer than that (they keep their own limit), in ms by name. */
  deadlines?: Readonly<Record<string, number>>;
  /** Whether a tool is listed now (a family waiting for its marker is callable but not listed). */
  listed?: (name: string) => boolean;
  /** What the tools read, by key (`observation`, `todos`). */
  services: Record<string, unknown>;
  /** Which of them are on, and whether output schemas are listed (default: all, none). */
  registry?: RegistryOptions;
  /** Each tool's icon by name, as its family declares it (default: none). */
  iconOf?: (name: string) => ToolIcon | undefined;
}

/**
 * Runs host-side tools with a context that carries host services. Their
 * file operations reach no root: only a confined tool worker touches
 * project files (every path is "outside the allowed roots" here).
 *
 * They run on the host's own thread, so they work in steps and give the
 * event loop a turn between them (other calls are answered meanwhile), and
 * each call has the same limits as a worker's: a client's cancellation or
 * the call timeout aborts its signal and answers `cancelled` or `timeout`
 * at once, whether or not the tool has noticed yet.
 */
export class HostToolProvider implements ToolProvider {
  /** For logs. */
  readonly name = "host";
  #registry: Registry;
  #described: ToolDescriptor[];
  #policy: Policy;
  #fs: SafeFs;
  #logger: HostLogger;
  #shared: Map<string, unknown>;
  #services: Readonly<Record<string, unknown>>;
  #callTimeoutMs: number;
  #deadlines: Readonly<Record<string, number>>;
  #listed: (name: string) => boolean;
  #running = new Map<AbortController, { name: string; deadline: number; limitMs: number }>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /**
   * @param tools The host-side tools.
   * @param options The policy, logger, time limit, services and which tools are on.
   */
  constructor(tools: readonly Tool[], options: HostToolOptions) {
    this.#registry = new Registry(tools, options.registry);
    this.#described = withIcons(this.#registry.list(), options.iconOf ?? (() => undefined));
    this.#policy = options.policy;
    this.#fs = new SafeFs(new Resolver({ ...options.policy, roots: [] }), new DirAnchor([]));
    this.#logger = options.logger;
    this.#shared = new Map(Object.entries(options.services));
    this.#services = options.services;
    this.#callTimeoutMs = options.callTimeoutMs;
    this.#deadlines = options.deadlines ?? {};
    this.#listed = options.listed ?? (() => true);
  }

  /** The tools listed now, in the order they were given, each with its icon. */
  list(): ToolDescriptor[] {
    return this.#described.filter((tool) => this.#listed(tool.name));
  }

  /**
   * The services its tools read, for a scope to start from (its own sandbox replaces the host's);
   * not the values its tools made and share (a resolver over the host's roots).
   *
   * @returns A copy of the services.
   */
  services(): Map<string, unknown> {
    return new Map(Object.entries(this.#services));
  }

  /**
   * Whether it answers calls of a tool: every tool it has, listed or not yet
   * (a family waiting for its marker answers calls all the same).
   *
   * @param name The tool's name.
   * @returns True when it has the tool and it is on.
   */
  serves(name: string): boolean {
    return this.#registry.has(name);
  }

  /**
   * Run one call in this process, within the call timeout.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param ctx Cancellation and progress.
   * @returns The result (these tools touch no paths); `cancelled` or `timeout` when stopped.
   */
  async call(name: string, args: unknown, ctx: CallContext): Promise<ProviderResult> {
    const stop = new AbortController();
    const cancel = () => stop.abort(new ToolError("cancelled", "the client cancelled the call"));
    if (ctx.signal?.aborted) cancel();
    else ctx.signal?.addEventListener("abort", cancel, { once: true });
    const stopped = new Promise<ToolResult>((resolve) => {
      const answer = () => {
        const reason = stop.signal.reason as ToolError;
        resolve(errorResult(reason.code, reason.message));
      };
      if (stop.signal.aborted) answer();
      else stop.signal.addEventListener("abort", answer, { once: true });
    });
    const limitMs = this.#deadlines[name] ?? this.#callTimeoutMs;
    this.#running.set(stop, { name, deadline: performance.now() + limitMs, limitMs });
    this.#watchDeadlines();
    try {
      const timing: { phases?: CallPhase[] } = {};
      const running = this.#registry.call(name, args, this.#context(stop.signal, ctx, timing));
      running.catch(() => {}); // answered by `stopped` first, it may still end later
      const result = await Promise.race([running, stopped]);
      return { result, paths: [], ...(timing.phases ? { phases: timing.phases } : {}) };
    } finally {
      ctx.signal?.removeEventListener("abort", cancel);
      this.#running.delete(stop);
      if (this.#running.size === 0 && this.#sweeper !== undefined) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }
  }

  #context(
    signal: AbortSignal,
    ctx: CallContext,
    timing: { phases?: CallPhase[] },
  ): ToolContext {
    // A client limited to some roots: its scope's policy, and its own sandbox among the services.
    const shared = ctx.scope?.shared ?? this.#shared;
    return {
      policy: ctx.scope?.policy ?? this.#policy,
      resolver: this.#fs.resolver,
      fs: this.#fs,
      signal,
      // On this thread a cancellation aborts the signal itself; no message waits to be let in.
      messageWaiting: () => false,
      progress: (progress, total, message) => ctx.onProgress?.(progress, total, message),
      logger: {
        warn: (message, detail) =>
          this.#logger.log("warn", message, detail === undefined ? undefined : String(detail)),
        error: (message, detail) =>
          this.#logger.log(
            "error",
            message,
            detail instanceof Error ? detail.stack : String(detail),
          ),
      },
      binaries: {},
      shared: <T>(key: string, make: () => T): T => {
        if (!shared.has(key)) shared.set(key, make());
        const value = shared.get(key);
        // The call's fetches and searches are timed for its span.
        if (key !== NETWORK_SERVICE || value === undefined) return value as T;
        return timedNetwork(value as Network, timing.phases ??= []) as T;
      },
    };
  }

  /**
   * One timer for all deadlines while calls run (as the worker pool has it): a call past
   * its deadline has its signal aborted with `timeout`.
   */
  #watchDeadlines(): void {
    if (this.#sweeper !== undefined) return;
    const sweeper = setInterval(() => {
      const now = performance.now();
      for (const [stop, { name, deadline, limitMs }] of this.#running) {
        if (now < deadline || stop.signal.aborted) continue;
        stop.abort(
          new ToolError(
            "timeout",
            `${name} ran past its ${limitMs / 1000} s limit and was stopped`,
          ),
        );
      }
    }, Math.min(100, Math.max(5, this.#callTimeoutMs / 10)));
    Deno.unrefTimer(sweeper as unknown as number);
    this.#sweeper = sweeper;
  }
}
