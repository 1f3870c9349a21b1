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
import { boundReply } from "../tools/reply_bound.ts";
import { type ConfigOverrides, type HostConfig, loadConfig } from "./config/config.ts";
import {
  type CallContext,
  type CallObserver,
  Dispatcher,
  type ToolProvider,
} from "./providers/dispatcher.ts";
import { WorkerPool } from "./workers/pool.ts";
import { assetPaths } from "./cli/launcher.ts";
import { AnchorStore } from "./state/anchors.ts";
import { ReadTracker } from "./state/stale_reads.ts";
import { InteractionLog, logReader } from "../sinks/interaction_log.ts";
import { HostToolProvider, PerformanceStats, TodoFileStore } from "./providers/host_tools.ts";
import { efferentParts, type HostStatus, type Observation } from "../tools/observe/_observation.ts";
import { HOST_TOOLS } from "../tools/host_tools.ts";
import { EfferentCopy } from "../sinks/efferent.ts";
import { efferentCopyEnabled, selfEntries } from "./config/efferent_env.ts";
import type { UpstreamProvider } from "./providers/upstream.ts";
import type { Directive } from "../tools/directives.ts";
import type { FileChange, RipgrepStatus } from "./workers/protocol.ts";
import { type HostLogger, stderrLogger } from "./logger.ts";

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
  /** Context anchors pushed by tools (also MCP resources). */
  readonly anchors: AnchorStore;
  /**
   * Be told when the tool list changes (an upstream's changed).
   *
   * @param listener The listener.
   * @returns A function that stops it.
   */
  onToolsChanged(listener: () => void): () => void;
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
  const pool = await WorkerPool.start(config.policy, {
    size: config.workers,
    registry: config.tools,
    ripgrep: config.ripgrep,
    callTimeoutMs: config.callTimeoutMs,
    landlock: config.landlock,
    extraRead: await assetPaths(),
    logger,
  });
  const toolsChanged = new Set<() => void>();
  const anchors = await AnchorStore.open(config.policy.stateDir, { logger });
  // The MCP client code reads the environment when it loads: load it only when upstreams are configured.
  const upstreams: UpstreamProvider[] = Object.keys(config.upstream).length === 0
    ? []
    : await (await import("./providers/upstream.ts")).startUpstreams(
      config,
      logger,
      () => toolsChanged.forEach((listener) => listener()),
    );
  const reads = new ReadTracker(config.policy.roots[0]!);
  const now = options.now ?? (() => new Date());
  const log = config.log.enabled
    ? new InteractionLog({
      stateDir: config.policy.stateDir,
      retentionDays: config.log.retentionDays,
      maxArgBytes: config.log.maxArgBytes,
      maxDayBytes: config.log.maxDayBytes,
      maxTotalBytes: config.log.maxTotalBytes,
      ...(config.log.redactKeys ? { redactKeys: config.log.redactKeys } : {}),
      // Over its caps, the log keeps calls of tools that may change things longest.
      writes: (tool): boolean =>
        dispatcher.list().find((each) => each.name === tool)?.annotations.readOnlyHint !== true,
      now,
    })
    : undefined;
  const stats = new PerformanceStats();
  const startedAt = now();
  // Efferent copy observes from the first call; discovery, in the background, says where to.
  const efferent = efferentCopyEnabled(options.efferentCopy)
    ? new EfferentCopy(undefined, config.log.redactKeys)
    : undefined;
  const status = (): HostStatus => ({
    landlock: pool.landlock,
    ripgrep: pool.ripgrep,
    efferent_copy: efferent?.status() ?? { state: "off" },
    upstreams: upstreams.map((upstream) => upstream.status()),
    warnings: [...config.warnings],
  });
  const observationTools = new HostToolProvider(HOST_TOOLS, {
    policy: config.policy,
    logger,
    callTimeoutMs: config.callTimeoutMs,
    services: {
      observation: {
        ...logReader(log),
        stats: () => stats.snapshot(),
        startedAt,
        anchors: () =>
          anchors.list().map((a) => ({
            key: a.key,
            chars: a.content.length,
            updated_at: a.updated_at,
          })),
        sinks: () => efferent?.health() ?? [],
        status,
        now,
      } satisfies Observation,
      todos: await TodoFileStore.open(config.policy.stateDir, { logger }),
    },
  });
  const dispatcher = new Dispatcher([localTools(pool, reads), observationTools, ...upstreams], {
    observers: [
      ...(log ? [log] : []),
      stats,
      ...(efferent ? [efferent] : []),
      ...(options.observers ?? []),
    ],
    onObserverError: (error) => logger.log("warn", "A call observer failed", String(error)),
    onDirectives: (directives) => applyDirectives(anchors, directives, logger),
    now,
  });
  reportCollisions(dispatcher, logger);
  const sinksReady = efferent ? discover(config, efferent, logger) : Promise.resolve(0);
  const flush = () => {
    dispatcher.settle();
    return log?.flush() ?? Promise.resolve();
  };
  const close = async () => {
    dispatcher.settle();
    pool.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
    await log?.close();
    await anchors.flush();
    await sinksReady;
    await efferent?.close();
  };
  return {
    config,
    policy: config.policy,
    dispatcher,
    logger,
    landlock: pool.landlock,
    ripgrep: pool.ripgrep,
    status,
    anchors,
    onToolsChanged(listener) {
      toolsChanged.add(listener);
      return () => toolsChanged.delete(listener);
    },
    list: () => dispatcher.list(),
    async call(name, args, ctx = {}) {
      const full: CallContext = { session: "local", client: "local", ...ctx };
      // A local call's worker checks the files this session read before the tool runs; for any
      // other call (host tools, upstream servers) a worker checks them meanwhile.
      const local = pool.tools.some((tool) => tool.name === name);
      const checked = local ? undefined : pool.check(reads.watch(full.session));
      const result = await dispatcher.call(name, args, full);
      if (checked) await awaitCheck(checked, (changes) => reads.changed(full.session, changes));
      // Whatever produced it (a worker, a host-side tool, an upstream server), with the notices.
      return boundReply(reads.decorate(full.session, result), config.policy.limits.maxOutputChars, {
        dropMeta: true,
      });
    },
    flush,
    sinksReady: () => sinksReady,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The local tools, run by the worker pool: each call takes the session's
 * watched files and expectations along, and brings back what it read and
 * what changed behind it.
 */
function localTools(pool: WorkerPool, reads: ReadTracker): ToolProvider {
  return {
    name: "local",
    list: () => pool.tools,
    call: async (name, args, ctx) => {
      const call: Parameters<WorkerPool["call"]>[2] = { watch: reads.watch(ctx.session) };
      if (ctx.signal) call.signal = ctx.signal;
      if (ctx.onProgress) call.onProgress = ctx.onProgress;
      const expect = reads.expectations(ctx.session, args);
      if (expect) call.expect = expect;
      const done = await pool.call(name, args, call);
      if (done.changes) reads.changed(ctx.session, done.changes);
      // A failed call's reads are not the agent's: it never saw that content.
      if (done.seen && !done.result.isError) reads.record(ctx.session, done.seen);
      return done;
    },
  };
}

/**
 * Find the sinks in the background (discovery never delays serving; the
 * calls made meanwhile are held by `efferent`), then say what was found.
 *
 * @returns How many sinks there are, once known.
 */
async function discover(
  config: HostConfig,
  efferent: EfferentCopy,
  logger: HostLogger,
): Promise<number> {
  try {
    const { discoverSinks } = await import("../sinks/discovery.ts");
    const { sinks, rejected } = await discoverSinks({
      mcpJson: config.mcpJson,
      selfEntry: selfEntries(),
      cwd: config.policy.roots[0]!,
      warn: (message) => logger.log("warn", message),
    });
    efferent.ready(sinks, rejected);
    logger.log("info", efferentParts(efferent.status()).join("; "));
    return sinks.length;
  } catch (error) {
    efferent.ready([], [{ name: config.mcpJson, reason: `discovery failed: ${error}` }]);
    logger.log("warn", efferentParts(efferent.status()).join("; "));
    return 0;
  }
}

/**
 * How long a host-side or upstream call's reply waits for a worker's check
 * of the session's files (a busy worker answers it late).
 */
const CHECK_WAIT_MS = 100;

/**
 * Take a worker's check into account now if it answers soon, else when it
 * does (its notices then go with the next reply): a host-side call never
 * waits on a worker's long call.
 */
async function awaitCheck(
  checked: Promise<FileChange[]>,
  apply: (changes: FileChange[]) => void,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_WAIT_MS);
  });
  const changes = await Promise.race([checked, late]);
  clearTimeout(timer);
  if (changes) apply(changes);
  else void checked.then(apply);
}

/** The host's part of directives: anchors are kept (the todo list is an anchor too). */
function applyDirectives(anchors: AnchorStore, directives: Directive[], logger: HostLogger): void {
  const anchored = new Set<string>();
  for (const directive of directives) {
    if (directive.kind === "ContextAnchor") {
      anchored.add(directive.key);
      void anchors.set(directive.key, directive.content).catch((error) =>
        logger.log("warn", `Cannot keep anchor "${directive.key}"`, String(error))
      );
    }
  }
  for (const directive of directives) {
    if (directive.kind === "TodoStateChanged" && !anchored.has("todo_state")) {
      void anchors.set("todo_state", directive.formatted_state);
    }
  }
}

/** Two providers offering one name: the first wins; say so once at start-up. */
function reportCollisions(dispatcher: Dispatcher, logger: HostLogger): void {
  const seen = new Set<string>();
  for (const tool of dispatcher.list()) {
    if (seen.has(tool.name)) {
      logger.log("warn", `Two tools are named "${tool.name}"; the first one listed serves calls`);
    }
    seen.add(tool.name);
  }
}
