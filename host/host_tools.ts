/**
 * Tools that run in the host's own process rather than the tool worker,
 * because what they read is host state: the interaction log, call
 * statistics, anchors, sinks, the todo list. They touch no project file.
 *
 * @module
 */

import { Anchor as DirAnchor } from "../security/anchored.ts";
import type { Policy } from "../security/policy.ts";
import { Resolver } from "../security/resolver.ts";
import { SafeFs } from "../security/safe_fs.ts";
import { Registry } from "../tools/registry.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import type { TodoItem, TodoStore } from "../tools/todo/todo.ts";
import type { ToolStats } from "../tools/observe/_observation.ts";
import type {
  CallContext,
  CallObserver,
  CallOutcome,
  CallRecord,
  ProviderResult,
  ToolProvider,
} from "./dispatcher.ts";
import type { PoolLogger } from "./worker_pool.ts";

/**
 * Runs host-side tools with a context that carries host services. Their
 * file operations reach no root: only a confined tool worker touches
 * project files (every path is "outside the allowed roots" here).
 */
export class HostToolProvider implements ToolProvider {
  /** For logs. */
  readonly name = "host";
  #registry: Registry;
  #policy: Policy;
  #fs: SafeFs;
  #logger: PoolLogger;
  #shared: Map<string, unknown>;

  /**
   * @param tools The host-side tools.
   * @param policy The policy in force (the tools describe it; they get no access to its roots).
   * @param logger Where internals go.
   * @param services What the tools read, by key (`observation`, `todos`).
   */
  constructor(
    tools: readonly Tool[],
    policy: Policy,
    logger: PoolLogger,
    services: Record<string, unknown>,
  ) {
    this.#registry = new Registry(tools);
    this.#policy = policy;
    this.#fs = new SafeFs(new Resolver({ ...policy, roots: [] }), new DirAnchor([]));
    this.#logger = logger;
    this.#shared = new Map(Object.entries(services));
  }

  /** The tools. */
  list(): ReturnType<Registry["list"]> {
    return this.#registry.list();
  }

  /**
   * Run one call in this process.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param ctx Cancellation and progress.
   * @returns The result (these tools touch no paths).
   */
  async call(name: string, args: unknown, ctx: CallContext): Promise<ProviderResult> {
    const toolCtx: ToolContext = {
      policy: this.#policy,
      resolver: this.#fs.resolver,
      fs: this.#fs,
      signal: ctx.signal ?? new AbortController().signal,
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
        if (!this.#shared.has(key)) this.#shared.set(key, make());
        return this.#shared.get(key) as T;
      },
    };
    return { result: await this.#registry.call(name, args, toolCtx), paths: [] };
  }
}

/** Keeps at most this many latencies per tool (the most recent). */
const SAMPLES = 2048;

/** Per-tool call counts, errors and latency percentiles since start. */
export class PerformanceStats implements CallObserver {
  #tools = new Map<
    string,
    { count: number; errors: number; max: number; samples: number[]; next: number }
  >();

  /**
   * Count a finished call.
   *
   * @param call The call.
   * @param outcome How it ended.
   */
  after(call: CallRecord, outcome: CallOutcome): void {
    let tool = this.#tools.get(call.tool);
    if (!tool) {
      this.#tools.set(call.tool, tool = { count: 0, errors: 0, max: 0, samples: [], next: 0 });
    }
    tool.count++;
    if (outcome.result.isError) tool.errors++;
    tool.max = Math.max(tool.max, outcome.durationMs);
    if (tool.samples.length < SAMPLES) tool.samples.push(outcome.durationMs);
    else tool.samples[tool.next++ % SAMPLES] = outcome.durationMs;
  }

  /** The statistics now. */
  snapshot(): Record<string, ToolStats> {
    const out: Record<string, ToolStats> = {};
    for (const [name, tool] of this.#tools) {
      const sorted = [...tool.samples].sort((a, b) => a - b);
      const at = (q: number) =>
        round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      out[name] = {
        count: tool.count,
        errors: tool.errors,
        p50_ms: at(0.5),
        p95_ms: at(0.95),
        max_ms: round(tool.max),
      };
    }
    return out;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The todo list, persisted as `todos.json` in the state directory. */
export class TodoFileStore implements TodoStore {
  #file: string;
  #items: TodoItem[] = [];

  private constructor(file: string) {
    this.#file = file;
  }

  /**
   * Open the list kept in a state directory.
   *
   * @param stateDir The host's state directory.
   * @returns The store.
   */
  static async open(stateDir: string): Promise<TodoFileStore> {
    const store = new TodoFileStore(`${stateDir}/todos.json`);
    try {
      const saved = JSON.parse(await Deno.readTextFile(store.#file)) as { todos?: TodoItem[] };
      store.#items = Array.isArray(saved.todos) ? saved.todos : [];
    } catch {
      // none yet
    }
    return store;
  }

  /** The list. */
  get(): TodoItem[] {
    return [...this.#items];
  }

  /**
   * Replace and persist the list (temp file, then rename).
   *
   * @param items The new list.
   */
  async set(items: TodoItem[]): Promise<void> {
    this.#items = [...items];
    const temp = `${this.#file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await Deno.writeTextFile(temp, JSON.stringify({ todos: this.#items }, null, 1));
    await Deno.rename(temp, this.#file);
  }
}
