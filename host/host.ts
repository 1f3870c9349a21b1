/**
 * A host: the configuration, the tool workers, the dispatcher and its
 * observers, as one value. Several can live in one process.
 *
 * @module
 */

import type { LandlockStatus } from "../security/landlock.ts";
import type { Policy } from "../security/policy.ts";
import type { ToolDescriptor } from "../tools/registry.ts";
import type { ToolResult } from "../tools/tool.ts";
import type { CallObserver } from "../tools/calls.ts";
import { FAMILIES } from "../tools/families.ts";
import type { HostStatus } from "../tools/observe/observation.ts";
import { hostCalls } from "./call.ts";
import { applyDirectives, started, writeHints } from "./_host_wiring.ts";
import type { FirstWorker } from "./first_worker.ts";
import { type ConfigOverrides, type HostConfig, loadConfig } from "./config/mod.ts";
import { type HostLogger, stderrLogger } from "./logger.ts";
import { type CallContext, type CallScope, Dispatcher } from "./providers/mod.ts";
import { detectLanguages, localTools, ShownFamilies } from "./providers/mod.ts";
import { AnchorStore } from "./state/mod.ts";
import { openSinks, ReadTracker, type SessionNotes } from "./state/mod.ts";
import type { TodoStore } from "../tools/todo/todo.ts";
import { openSessionLog, type SessionLog } from "./state/mod.ts";
import type { RipgrepStatus } from "./workers/mod.ts";
import { type HostPerformance, performanceData } from "../tools/observe/get_host_performance.ts";
import { type Approvals, HookEvents } from "./approvals/mod.ts";
import { approvalsFor } from "./_approval_wiring.ts";
import { hostSide } from "./_host_side.ts";
import { closeParts, familyOf, idleWork, loadUpstreams, startPool } from "./_host_parts.ts";
import { clientSide } from "./_client_wiring.ts";
import type { ToolFacts } from "./clients/mod.ts";

/** Options for {@linkcode createHost}. */
export interface HostOptions extends ConfigOverrides {
  /** A resolved config to use instead of loading one. */
  config?: HostConfig;
  /** Extra observers of every call. */
  observers?: CallObserver[];
  /** Where the host's own messages go (default: stderr). */
  logger?: HostLogger;
  /** The clock of the interaction log and observation tools (tests inject one). */
  now?: () => Date;
  /** Efferent copy on or off, instead of EFFERENT_COPY_ENABLE / EFFERENT_COPY_DISABLE. */
  efferentCopy?: boolean;
  /**
   * The first tool worker, started ahead for this `config` (`first_worker.ts`).
   *
   * @internal The CLI's start-up, not part of the library's API.
   */
  firstWorker?: FirstWorker;
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
  readonly logger: HostLogger;
  /** Whether the tool workers' threads are confined by Landlock, and why not. */
  readonly landlock: LandlockStatus;
  /** Whether ripgrep runs in the tool workers, and why not. */
  readonly ripgrep: RipgrepStatus;
  /** What is in effect and what is not: confinement, ripgrep, efferent copy, upstream servers. */
  status(): HostStatus;
  /** What `get_host_performance` reports, as data. */
  performance(): HostPerformance;
  /** Events a human watches (the Hook API's): approvals asked and answered, and what the Hook API adds. */
  readonly events: HookEvents;
  /** The calls that wait for a human, or null when no approval rule is configured. */
  readonly approvals: Approvals | null;
  /** Context anchors pushed by tools (also MCP resources). */
  readonly anchors: AnchorStore;
  /** The todo list the todo tools keep. */
  readonly todos: TodoStore;
  /** A human's notes to the session (the Hook API adds them; bootstrap_body_state shows them). */
  readonly notes: SessionNotes;
  /**
   * This connection's session log (MCP messages, processes); its id is the calls' `session`.
   *
   * @internal The transports' wiring, not part of the library's API.
   */
  readonly sessions: SessionLog;
  /**
   * Be told when the tool list changes (an upstream's changed, a language's family appeared).
   *
   * @param listener The listener.
   * @returns A function that stops it.
   */
  onToolsChanged(listener: () => void): () => void;
  /**
   * Every tool, as clients see it, in an order that never depends on timing:
   * the families' in `tools/families.ts` order (each family's tools in its
   * list's order), then the upstream servers' by server name, each server's
   * tools by listed name.
   */
  list(): ToolDescriptor[];
  /**
   * Whether the tool workers run a tool of this name (the host's own code
   * answers it, never an upstream server's).
   *
   * @param name The tool's name.
   */
  runsInWorker(name: string): boolean;
  /**
   * What a client's rights judge of a tool: its classes (write, exec, net, upstream) and family.
   *
   * @param name The tool's name.
   * @internal The client rights' wiring, not part of the library's API.
   */
  toolFacts(name: string): ToolFacts;
  /**
   * Where a client limited to some roots runs its calls: tool workers and a shell sandbox of its
   * own, confined to those roots, started at its first call.
   *
   * @param roots Its roots (real paths, each a root or inside one).
   * @internal The client rights' wiring, not part of the library's API.
   */
  scopeOf(roots: readonly string[]): Promise<CallScope>;
  /**
   * A session ended (an HTTP session closed, a stateless request answered):
   * forget what it read.
   *
   * @param session The session.
   */
  endSession(session: string): void;
  /**
   * Call a tool through the dispatcher.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param ctx Session, client, cancellation, progress.
   */
  call(name: string, args: unknown, ctx?: Partial<CallContext>): Promise<ToolResult>;
  /** Resolves when every call so far is in the interaction log. */
  flush(): Promise<void>;
  /**
   * Resolves (with their number) when sink discovery, which runs in the
   * background, is done; the calls made before it are mirrored then.
   */
  sinksReady(): Promise<number>;
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
  const now = options.now ?? (() => new Date());
  const sessions = await openSessionLog(config, logger, now);
  const idle = idleWork(logger, sessions);
  const pool = await startPool(config, { logger, sessions, idle, first: options.firstWorker });
  const shown = new ShownFamilies(FAMILIES, config.tools);
  await detectLanguages(pool, shown, logger);
  const anchors = await AnchorStore.open(config.policy.stateDir, { logger });
  const toolsChanged = new Set<() => void>();
  const listChanged = () => toolsChanged.forEach((f) => f());
  shown.onChange(listChanged);
  const upstreams = await loadUpstreams(config, logger, listChanged, sessions);
  const reads = new ReadTracker(config.policy.roots[0]!);
  const writes = writeHints(() => [...pool.tools, ...dispatcher.list()], toolsChanged);
  const mirrored = (tool: string) => familyOf(pool, tool)?.mirrored !== false;
  const { efferentCopy } = options;
  const sinks = openSinks(config, logger, { now, efferentCopy, writes, mirrored, sessions });
  const side = { pool, sinks, upstreams, anchors, sessions, shown, now };
  const { network, status, observation, hostTools, keeps } = await hostSide(config, logger, side);
  const events = new HookEvents(now), tools = () => dispatcher.list();
  const held = approvalsFor(config, logger, { tools, upstreams, events, toolsChanged, now });
  const dispatcher = new Dispatcher([localTools(pool, reads, shown), hostTools, ...upstreams], {
    ...(held ? { gate: (call, ctx) => held.approvals.gate(call, ctx) } : {}),
    observers: [...sinks.observers, ...(options.observers ?? [])],
    onObserverError: (error) => logger.log("warn", "A call observer failed", String(error)),
    onDirectives: (directives) => applyDirectives(anchors, directives),
    now,
    idle,
  });
  started(dispatcher, pool, logger);
  const clients = clientSide(config, { logger, sessions, idle, hostTools, upstreams, pool });
  const parts = { pool, upstreams, dispatcher, sinks, anchors, sessions, held, network, idle };
  const close = () => closeParts(parts, clients.scopes);
  return {
    config,
    policy: config.policy,
    dispatcher,
    logger,
    landlock: pool.landlock,
    ripgrep: pool.ripgrep,
    status,
    performance: () => (dispatcher.settle(), performanceData(observation)),
    events,
    approvals: held?.approvals ?? null,
    anchors,
    ...keeps,
    sessions,
    onToolsChanged: (listener) => (toolsChanged.add(listener), () => toolsChanged.delete(listener)),
    list: () => dispatcher.list(),
    ...clients.surface(tools, toolsChanged),
    endSession: (session) => (reads.forget(session), held?.approvals.endSession(session)),
    ...hostCalls({ dispatcher, pool, reads, maxReplyBytes: config.policy.limits.maxOutputChars }),
    flush: () => (dispatcher.settle(), sinks.flush().then(() => sessions.flush())),
    sinksReady: () => sinks.ready,
    close,
    [Symbol.asyncDispose]: close,
  };
}
