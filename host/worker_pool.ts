/**
 * The tool worker pool: a few workers with the policy's permissions, calls
 * sent to the least busy one, a worker that hangs or dies replaced without
 * taking the host down.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import type { Policy } from "../security/policy.ts";
import { workerPermissions } from "../security/permissions.ts";
import { findLibc, type LandlockStatus, programPaths } from "../security/landlock.ts";
import {
  errorResult,
  type RegistryOptions,
  type ToolDescriptor,
  UnknownToolError,
} from "../tools/registry.ts";
import type { ToolResult } from "../tools/tool.ts";
import type {
  FileChange,
  FromWorker,
  Probe,
  RipgrepStatus,
  SeenFiles,
  ToWorker,
  WatchedFile,
} from "./worker_protocol.ts";
import type { RipgrepSetting } from "./config.ts";
import { Mailbox, threadYielder } from "./mailbox.ts";

/** Tools that parse code with tree-sitter. */
const CODE_TOOL = /^(py_|ts_|get_file_summary$|derive_code_path$)/;

/** How long the host blocks for a lone call's answer before waiting through the event loop. */
const BRIEF_WAIT_MS = 1;

/** How long a call that was asked to stop may take before its worker is terminated. */
const GRACE_MS = 1_000;

/** Where the pool reports its own events. */
export interface PoolLogger {
  /** A line for the host's stderr. */
  log(level: "info" | "warn" | "error", message: string, detail?: string | undefined): void;
}

/** Options for {@linkcode WorkerPool.start}. */
export interface PoolOptions {
  /** How many workers (at least 1). */
  size: number;
  /** Which tools are on. */
  registry: RegistryOptions;
  /** The ripgrep binary tools may use (each worker checks that it runs), or why none. */
  ripgrep: RipgrepSetting;
  /** Extra read-only files the tools need. */
  extraRead?: readonly string[];
  /** A call running longer than this is stopped and its worker replaced. */
  callTimeoutMs: number;
  /** Confine the workers' threads with Landlock where the kernel has it (default true). */
  landlock?: boolean;
  /** A module exporting `TOOLS` to run instead of the built-in list (for tests). */
  toolsModule?: URL;
  /** Where events go. */
  logger: PoolLogger;
}

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
}

interface Pending {
  /** When the call times out (performance.now() milliseconds). */
  deadline: number;
  /** The call was asked to stop. */
  stopping?: boolean;
  resolve(value: PoolResult): void;
  reject(error: Error): void;
  onProgress: PoolCall["onProgress"];
  name: string;
}

interface Slot {
  worker: Worker;
  /** Host → worker messages (fast path; large ones go by postMessage). */
  outbox: Mailbox;
  /** Worker → host messages. */
  inbox: Mailbox;
  pending: Map<number, Pending>;
  /** False while a replacement worker starts: calls go elsewhere if they can. */
  ready: boolean;
}

/** A pool of tool workers. */
export class WorkerPool {
  /** The tools the workers offer. */
  readonly tools: ToolDescriptor[];
  /** Whether the workers' threads are confined by Landlock. */
  readonly landlock: LandlockStatus;
  /** Whether ripgrep runs in the workers, and why not. */
  readonly ripgrep: RipgrepStatus;
  #policy: Policy;
  #options: PoolOptions;
  #slots: Slot[];
  #nextId = 1;
  #closed = false;
  #probes = new Map<number, (error: string | null) => void>();
  #checks = new Map<number, { slot: Slot; finish(changes: FileChange[]): void }>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  private constructor(
    policy: Policy,
    options: PoolOptions,
    slots: Slot[],
    tools: ToolDescriptor[],
    ready: Ready,
  ) {
    this.landlock = ready.landlock;
    this.ripgrep = ready.ripgrep;
    this.#policy = policy;
    this.#options = options;
    this.#slots = slots;
    this.tools = tools;
  }

  /**
   * Start the workers and wait until they are ready.
   *
   * @param policy The policy (it sets the workers' permissions).
   * @param options Size, tools, timeouts.
   * @returns The ready pool.
   */
  static async start(policy: Policy, options: PoolOptions): Promise<WorkerPool> {
    const size = Math.max(1, Math.floor(options.size));
    const started = await Promise.all(Array.from({ length: size }, () => spawn(policy, options)));
    const pool = new WorkerPool(
      policy,
      options,
      started.map((s) => s.slot),
      started[0]!.tools,
      started[0]!,
    );
    pool.#slots.forEach((slot) => pool.#listen(slot));
    return pool;
  }

  /**
   * Run one tool call on the least busy worker.
   *
   * @param name The tool.
   * @param args Its raw arguments.
   * @param call Cancellation and progress.
   * @returns The result and touched paths.
   * @throws {UnknownToolError} When no worker tool has that name.
   */
  call(name: string, args: unknown, call: PoolCall = {}): Promise<PoolResult> {
    if (this.#closed) {
      return Promise.resolve({
        result: errorResult("unavailable", "the host is shutting down"),
        paths: [],
      });
    }
    const slot = this.#pick(name);
    const id = this.#nextId++;
    return new Promise<PoolResult>((resolve, reject) => {
      const onAbort = () => this.#stop(slot, id, "cancelled");
      call.signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => call.signal?.removeEventListener("abort", onAbort);
      this.#watchDeadlines();
      slot.pending.set(id, {
        name,
        deadline: performance.now() + this.#options.callTimeoutMs,
        onProgress: call.onProgress,
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      });
      const message: ToWorker = { type: "call", id, name, args };
      if (call.expect) message.expect = call.expect;
      if (call.watch && call.watch.length > 0) message.watch = call.watch;
      send(slot, message);
      if (this.#inFlight() === 1) this.#awaitBriefly(slot, id);
    });
  }

  /**
   * The worker for a call: the least busy one, except that code tools go to
   * the first worker while it is not busy, so that one worker holds the
   * parsed trees (and the grammars' wasm memory, which is never given back).
   */
  #pick(name: string): Slot {
    const first = this.#slots[0]!;
    if (CODE_TOOL.test(name) && first.ready && first.pending.size === 0) return first;
    return this.#slots.reduce((best, each) => (load(each) < load(best) ? each : best));
  }

  /** Calls in flight across the pool. */
  #inFlight(): number {
    let count = 0;
    for (const slot of this.#slots) count += slot.pending.size;
    return count;
  }

  /**
   * With one call in flight (an agent calling tools one after another), wait
   * for its answer blocking, for at most a millisecond: most small calls are
   * answered by then, without the cost of waking a parked event loop.
   */
  #awaitBriefly(slot: Slot, id: number): void {
    const until = performance.now() + BRIEF_WAIT_MS;
    while (slot.pending.has(id) && slot.ready) {
      const left = until - performance.now();
      if (left <= 0) return;
      const message = slot.inbox.take(left);
      if (message === undefined) return;
      this.#receive(slot, message as FromWorker);
    }
  }

  /**
   * Ask a worker to try a raw operation with no resolver in the way (for
   * `toolhost doctor`): only the worker's Deno permissions can stop it.
   *
   * @param probe The operation.
   * @param target The path, program, host or variable.
   * @returns The error's name (`NotCapable` when Deno refused), or null when it succeeded.
   */
  probe(probe: Probe, target: string): Promise<string | null> {
    const slot = this.#slots[0]!;
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#probes.set(id, resolve);
      send(slot, { type: "probe", id, probe, target } satisfies ToWorker);
    });
  }

  /**
   * Check watched files for changes by other means, on a worker (for calls
   * that run elsewhere: host tools, upstream servers). Never fails: a worker
   * that is replaced meanwhile answers nothing, which is "no changes".
   *
   * @param watch The files, as the host last showed them.
   * @returns What changed.
   */
  check(watch: WatchedFile[]): Promise<FileChange[]> {
    if (this.#closed || watch.length === 0) return Promise.resolve([]);
    const slot = this.#slots.reduce((best, each) => (load(each) < load(best) ? each : best));
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish([]), this.#options.callTimeoutMs);
      const finish = (changes: FileChange[]) => {
        clearTimeout(timer);
        this.#checks.delete(id);
        resolve(changes);
      };
      this.#checks.set(id, { slot, finish });
      send(slot, { type: "check", id, watch } satisfies ToWorker);
    });
  }

  /** Terminate every worker; calls in flight fail. */
  close(): void {
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    for (const check of [...this.#checks.values()]) check.finish([]);
    for (const slot of this.#slots) {
      slot.worker.terminate();
      slot.outbox.close();
      slot.inbox.close();
      for (const [, pending] of slot.pending) {
        pending.resolve({
          result: errorResult("unavailable", "the host shut down during the call"),
          paths: [],
        });
      }
      slot.pending.clear();
    }
  }

  /**
   * One timer for all deadlines (a timer per call costs more than the call's
   * own round trip): it runs while calls are in flight, and never keeps the
   * process alive.
   */
  #watchDeadlines(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.min(100, Math.max(5, this.#options.callTimeoutMs / 10));
    const sweeper = setInterval(() => {
      const now = performance.now();
      let inFlight = 0;
      for (const slot of this.#slots) {
        for (const [id, pending] of slot.pending) {
          inFlight++;
          if (!pending.stopping && now >= pending.deadline) this.#stop(slot, id, "timeout");
        }
      }
      if (inFlight === 0) {
        clearInterval(sweeper);
        this.#sweeper = undefined;
      }
    }, every);
    Deno.unrefTimer(sweeper as unknown as number);
    this.#sweeper = sweeper;
  }

  /** Ask a call to stop; if it does not within the grace period, replace its worker. */
  #stop(slot: Slot, id: number, reason: "cancelled" | "timeout"): void {
    const stopping = slot.pending.get(id);
    if (!stopping || stopping.stopping) return;
    stopping.stopping = true;
    send(slot, { type: "cancel", id, reason } satisfies ToWorker);
    setTimeout(() => {
      const pending = slot.pending.get(id);
      if (!pending || this.#closed) return;
      const seconds = this.#options.callTimeoutMs / 1000;
      this.#options.logger.log(
        "warn",
        `${pending.name} did not stop; its worker was terminated and replaced`,
      );
      this.#replace(
        slot,
        (each) =>
          each === pending
            ? reason === "timeout"
              ? errorResult(
                "timeout",
                `${each.name} ran past its ${seconds} s limit and was stopped`,
              )
              : errorResult("cancelled", `${each.name} was cancelled`)
            : errorResult(
              "internal_error",
              `${each.name} was interrupted: it shared a worker with a call that had to be stopped; call it again`,
            ),
      );
    }, reason === "timeout" ? GRACE_MS : GRACE_MS * 5);
  }

  /** Terminate a slot's worker, answer its pending calls, and start a fresh one. */
  #replace(slot: Slot, answer: (pending: Pending) => ToolResult): void {
    slot.worker.terminate();
    slot.outbox.close();
    slot.inbox.close();
    const pending = [...slot.pending.values()];
    slot.pending.clear();
    for (const each of pending) each.resolve({ result: answer(each), paths: [] });
    for (const check of this.#checks.values()) if (check.slot === slot) check.finish([]);
    if (this.#closed) return;
    const fresh = spawnWorker(this.#policy, this.#options);
    slot.worker = fresh.worker;
    slot.outbox = fresh.outbox;
    slot.inbox = fresh.inbox;
    slot.ready = false;
    fresh.ready.then(
      () => {
        slot.ready = true;
        this.#listen(slot);
      },
      (error) =>
        this.#options.logger.log("error", "A tool worker failed to restart", String(error)),
    );
  }

  #listen(slot: Slot): void {
    const inbox = slot.inbox;
    void inbox.listen((message) => {
      if (slot.inbox === inbox) this.#receive(slot, message as FromWorker);
    });
    slot.worker.onmessage = (event: MessageEvent<FromWorker>) => this.#receive(slot, event.data);
    slot.worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#options.logger.log("error", "A tool worker crashed; it was replaced", event.message);
      this.#replace(slot, (each) =>
        errorResult(
          "internal_error",
          `${each.name} failed unexpectedly; the details are in the host's log`,
        ));
    };
  }

  #receive(slot: Slot, message: FromWorker): void {
    if (message.type === "log") {
      this.#options.logger.log(message.level, message.message, message.detail);
      return;
    }
    if (message.type === "ready") return;
    if (message.type === "probe_result") {
      this.#probes.get(message.id)?.(message.error);
      this.#probes.delete(message.id);
      return;
    }
    if (message.type === "checked") {
      this.#checks.get(message.id)?.finish(message.changes);
      return;
    }
    const pending = slot.pending.get(message.id);
    if (!pending) return;
    if (message.type === "progress") {
      pending.onProgress?.(message.progress, message.total, message.message);
    } else if (message.type === "result") {
      slot.pending.delete(message.id);
      const done: PoolResult = { result: message.result, paths: message.paths };
      if (message.seen) done.seen = message.seen;
      if (message.changes) done.changes = message.changes;
      pending.resolve(done);
    } else if (message.type === "unknown_tool") {
      slot.pending.delete(message.id);
      pending.reject(new UnknownToolError(pending.name));
    }
  }
}

interface Ready {
  tools: ToolDescriptor[];
  landlock: LandlockStatus;
  ripgrep: RipgrepStatus;
}

interface Spawned {
  worker: Worker;
  outbox: Mailbox;
  inbox: Mailbox;
  ready: Promise<Ready>;
}

function spawnWorker(policy: Policy, options: PoolOptions): Spawned {
  const libc = options.landlock === false ? null : findLibc();
  const extraRead = [
    ...(options.extraRead ?? []),
    ...(options.toolsModule ? [fromFileUrl(options.toolsModule)] : []),
  ];
  const rg = options.ripgrep.path;
  const permissions = workerPermissions(policy, {
    run: rg !== null ? [rg] : [],
    read: extraRead,
    libc,
  });
  const worker = new Worker(new URL("./tool_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions },
  } as WorkerOptions);
  const ready = new Promise<Ready>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (event.data.type === "ready") {
        const { tools, landlock, ripgrep } = event.data;
        resolve({ tools, landlock, ripgrep });
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      reject(new Error(`The tool worker failed to start: ${event.message}`));
    };
  });
  const toWorker = Mailbox.buffer();
  const fromWorker = Mailbox.buffer();
  worker.postMessage(
    {
      type: "init",
      mailboxes: { toWorker, fromWorker },
      policy,
      registry: options.registry,
      ripgrep: rg,
      ...(options.ripgrep.path === null ? { noRipgrep: options.ripgrep.reason } : {}),
      libc,
      ...(libc ? {} : {
        noLibc: options.landlock === false
          ? 'switched off ("landlock": false in toolhost.json)'
          : "libc was not found",
      }),
      toolsModule: options.toolsModule?.href ?? null,
      landlock: {
        readWrite: [...policy.roots, policy.stateDir],
        // ripgrep runs from the confined thread, so it is confined too; it needs its binary and libraries.
        readOnly: [
          ...extraRead,
          ...(rg !== null && libc ? programPaths(rg, libc) : []),
        ],
      },
    } satisfies ToWorker,
  );
  // The host's thread polls its inbox for a lone call's answer (see `#awaitBriefly`).
  const inbox = new Mailbox(fromWorker, threadYielder(libc));
  return { worker, outbox: new Mailbox(toWorker), inbox, ready };
}

async function spawn(policy: Policy, options: PoolOptions): Promise<{ slot: Slot } & Ready> {
  const { worker, outbox, inbox, ready } = spawnWorker(policy, options);
  return { slot: { worker, outbox, inbox, pending: new Map(), ready: true }, ...(await ready) };
}

/** How busy a slot is: its calls in flight, and a starting worker counts as very busy. */
function load(slot: Slot): number {
  return slot.pending.size + (slot.ready ? 0 : 1_000);
}

/** Send to a worker: through shared memory, or by postMessage when too large. */
function send(slot: Slot, message: ToWorker): void {
  if (slot.outbox.send(message)) return;
  slot.worker.postMessage(message);
  slot.outbox.announce();
}
