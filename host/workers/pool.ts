/**
 * The tool worker pool: a few workers with the policy's permissions. Each
 * worker runs one call at a time; calls wait in one queue and go to whichever
 * worker is free first, so a call never waits behind a busy worker while
 * another is free. A worker that hangs or dies is replaced without taking
 * the host down, and the calls still waiting run on the others.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import type { Policy } from "../../security/policy.ts";
import { workerPermissions } from "../../security/permissions.ts";
import { findLibc, type LandlockStatus, programPaths } from "../../security/landlock.ts";
import {
  errorResult,
  type RegistryOptions,
  type ToolDescriptor,
  UnknownToolError,
} from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type {
  FileChange,
  FromWorker,
  Probe,
  RipgrepStatus,
  SeenFiles,
  ToWorker,
  WatchedFile,
} from "./protocol.ts";
import type { RipgrepSetting } from "../config/config.ts";
import { Mailbox, threadYielder } from "./mailbox.ts";
import type { HostLogger } from "../logger.ts";

/** Tools that parse code with tree-sitter. */
const CODE_TOOL = /^(py_|ts_|get_file_summary$|derive_code_path$)/;

/** How long the host blocks for a lone call's answer before waiting through the event loop. */
const BRIEF_WAIT_MS = 1;

/** How long a call that was asked to stop may take before its worker is terminated. */
const GRACE_MS = 1_000;

/** Options for {@linkcode WorkerPool.start}. */
export interface PoolOptions {
  /** How many workers (at least 1), which is also how many calls run at once. */
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
  /** A module exporting `TOOLS` to run instead of the built-in list (for tests). */
  toolsModule?: URL;
  /** Where events go. */
  logger: HostLogger;
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

/** A call, from when it is made until it is answered: waiting in the queue, then on a worker. */
interface Job {
  id: number;
  name: string;
  message: Extract<ToWorker, { type: "call" }>;
  /** When the call times out (performance.now() milliseconds); set when a worker takes it. */
  deadline: number;
  /** The call was asked to stop. */
  stopping?: boolean;
  resolve(value: PoolResult): void;
  reject(error: Error): void;
  onProgress: PoolCall["onProgress"];
}

interface Slot {
  worker: Worker;
  /** Host → worker messages (fast path; large ones go by postMessage). */
  outbox: Mailbox;
  /** Worker → host messages. */
  inbox: Mailbox;
  /** The call this worker runs, if any: a worker runs one at a time. */
  job: Job | undefined;
  /** False while a replacement worker starts (or when it could not start): no call goes there. */
  ready: boolean;
  /** Its replacement could not start: it never takes a call again. */
  lost?: boolean;
}

/** A check of watched files, sent to one worker or, when none is free, to each. */
interface Check {
  /** The workers asked and not yet replaced. */
  slots: Set<Slot>;
  finish(changes: FileChange[]): void;
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
  /** Calls no worker has taken yet, oldest first. */
  #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  #probes = new Map<number, (error: string | null) => void>();
  #checks = new Map<number, Check>();
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
   * Run one tool call on the first worker that is free: at once when one is,
   * else when one finishes its call (or is replaced).
   *
   * @param name The tool.
   * @param args Its raw arguments.
   * @param call Cancellation and progress.
   * @returns The result and touched paths.
   * @throws {UnknownToolError} When no worker tool has that name.
   */
  call(name: string, args: unknown, call: PoolCall = {}): Promise<PoolResult> {
    if (this.#closed || this.#slots.every((slot) => slot.lost)) {
      const why = this.#closed ? "the host is shutting down" : "no tool worker could be restarted";
      return Promise.resolve({ result: errorResult("unavailable", why), paths: [] });
    }
    if (call.signal?.aborted) {
      return Promise.resolve({ result: cancelled(name), paths: [] });
    }
    const id = this.#nextId++;
    const message: Job["message"] = { type: "call", id, name, args };
    if (call.expect) message.expect = call.expect;
    if (call.watch && call.watch.length > 0) message.watch = call.watch;
    return new Promise<PoolResult>((resolve, reject) => {
      const onAbort = () => this.#cancel(job);
      call.signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => call.signal?.removeEventListener("abort", onAbort);
      const job: Job = {
        id,
        name,
        message,
        deadline: Infinity,
        onProgress: call.onProgress,
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      };
      this.#queue.push(job);
      this.#dispatch();
      const slot = this.#slots.find((each) => each.job === job);
      if (slot && this.#inFlight() === 1) this.#awaitBriefly(slot, job);
    });
  }

  /** Hand waiting calls, oldest first, to free workers. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      const job = this.#queue[0]!;
      const slot = this.#freeFor(job.name);
      if (slot === undefined) return;
      this.#queue.shift();
      slot.job = job;
      job.deadline = performance.now() + this.#options.callTimeoutMs;
      send(slot, job.message);
      this.#watchDeadlines();
    }
  }

  /**
   * A free worker for a call, if any: code tools go to the first worker when
   * it is free, so that one worker holds the parsed trees (and the grammars'
   * wasm memory, which is never given back).
   */
  #freeFor(name: string): Slot | undefined {
    const free = (slot: Slot) => slot.ready && slot.job === undefined;
    const first = this.#slots[0]!;
    if (CODE_TOOL.test(name) && free(first)) return first;
    return this.#slots.find(free);
  }

  /** Calls running on workers. */
  #inFlight(): number {
    let count = 0;
    for (const slot of this.#slots) if (slot.job) count++;
    return count;
  }

  /**
   * With one call in flight (an agent calling tools one after another), wait
   * for its answer blocking, for at most a millisecond: most small calls are
   * answered by then, without the cost of waking a parked event loop.
   */
  #awaitBriefly(slot: Slot, job: Job): void {
    const until = performance.now() + BRIEF_WAIT_MS;
    while (slot.job === job && slot.ready) {
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
   * that run elsewhere: host tools, upstream servers): a free one, or when
   * none is free every running one (a worker answers between the steps of
   * its call; the first answer counts). Never fails: workers that are
   * replaced meanwhile answer nothing, which is "no changes".
   *
   * @param watch The files, as the host last showed them.
   * @returns What changed.
   */
  check(watch: WatchedFile[]): Promise<FileChange[]> {
    if (this.#closed || watch.length === 0) return Promise.resolve([]);
    const live = this.#slots.filter((slot) => slot.ready);
    const free = live.find((slot) => slot.job === undefined);
    const asked = free ? [free] : live;
    if (asked.length === 0) return Promise.resolve([]);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish([]), this.#options.callTimeoutMs);
      const finish = (changes: FileChange[]) => {
        clearTimeout(timer);
        this.#checks.delete(id);
        resolve(changes);
      };
      this.#checks.set(id, { slots: new Set(asked), finish });
      for (const slot of asked) send(slot, { type: "check", id, watch } satisfies ToWorker);
    });
  }

  /** Terminate every worker; calls in flight or waiting fail. */
  close(): void {
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    for (const check of [...this.#checks.values()]) check.finish([]);
    const shutDown = { result: errorResult("unavailable", "the host shut down during the call") };
    for (const slot of this.#slots) {
      slot.worker.terminate();
      slot.outbox.close();
      slot.inbox.close();
      slot.job?.resolve({ ...shutDown, paths: [] });
      slot.job = undefined;
    }
    for (const job of this.#queue.splice(0)) job.resolve({ ...shutDown, paths: [] });
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
      for (const slot of this.#slots) {
        const job = slot.job;
        if (job && !job.stopping && now >= job.deadline) this.#stop(slot, job, "timeout");
      }
      if (this.#inFlight() === 0) {
        clearInterval(sweeper);
        this.#sweeper = undefined;
      }
    }, every);
    Deno.unrefTimer(sweeper as unknown as number);
    this.#sweeper = sweeper;
  }

  /** A client cancelled: a waiting call is dropped, a running one asked to stop. */
  #cancel(job: Job): void {
    const waiting = this.#queue.indexOf(job);
    if (waiting >= 0) {
      this.#queue.splice(waiting, 1);
      job.resolve({ result: cancelled(job.name), paths: [] });
      return;
    }
    const slot = this.#slots.find((each) => each.job === job);
    if (slot) this.#stop(slot, job, "cancelled");
  }

  /** Ask a call to stop; if it does not within the grace period, replace its worker. */
  #stop(slot: Slot, job: Job, reason: "cancelled" | "timeout"): void {
    if (job.stopping) return;
    job.stopping = true;
    send(slot, { type: "cancel", id: job.id, reason } satisfies ToWorker);
    setTimeout(() => {
      if (slot.job !== job || this.#closed) return;
      const seconds = this.#options.callTimeoutMs / 1000;
      this.#options.logger.log(
        "warn",
        `${job.name} did not stop; its worker was terminated and replaced (a thread stuck in a loop may keep a core busy until the host exits: denoland/deno#35657)`,
      );
      this.#replace(
        slot,
        reason === "timeout"
          ? errorResult("timeout", `${job.name} ran past its ${seconds} s limit and was stopped`)
          : cancelled(job.name),
      );
    }, reason === "timeout" ? GRACE_MS : GRACE_MS * 5);
  }

  /**
   * Terminate a slot's worker, answer its call, and start a fresh one. Calls
   * still waiting are not the worker's: they go to whichever worker is free first.
   */
  #replace(slot: Slot, answer: ToolResult): void {
    slot.worker.terminate();
    slot.outbox.close();
    slot.inbox.close();
    const job = slot.job;
    slot.job = undefined;
    slot.ready = false;
    job?.resolve({ result: answer, paths: [] });
    for (const check of [...this.#checks.values()]) {
      if (check.slots.delete(slot) && check.slots.size === 0) check.finish([]);
    }
    if (this.#closed) return;
    const fresh = spawnWorker(this.#policy, this.#options);
    slot.worker = fresh.worker;
    slot.outbox = fresh.outbox;
    slot.inbox = fresh.inbox;
    fresh.ready.then(
      () => {
        if (this.#closed) return fresh.worker.terminate();
        slot.ready = true;
        this.#listen(slot);
        this.#dispatch();
      },
      (error) => {
        slot.lost = true;
        this.#options.logger.log("error", "A tool worker failed to restart", String(error));
        if (!this.#slots.every((each) => each.lost)) return;
        const none = errorResult("unavailable", "no tool worker could be restarted");
        for (const waiting of this.#queue.splice(0)) waiting.resolve({ result: none, paths: [] });
      },
    );
  }

  #listen(slot: Slot): void {
    const inbox = slot.inbox;
    void inbox.listen((message) => {
      if (slot.inbox === inbox) this.#receive(slot, message as FromWorker);
    });
    const worker = slot.worker;
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (slot.worker === worker) this.#receive(slot, event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (slot.worker !== worker) return;
      this.#options.logger.log("error", "A tool worker crashed; it was replaced", event.message);
      const name = slot.job?.name ?? "the call";
      this.#replace(
        slot,
        errorResult(
          "internal_error",
          `${name} failed unexpectedly; the details are in the host's log`,
        ),
      );
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
    const job = slot.job;
    if (job === undefined || job.id !== message.id) return;
    if (message.type === "progress") {
      job.onProgress?.(message.progress, message.total, message.message);
      return;
    }
    slot.job = undefined;
    if (message.type === "result") {
      const done: PoolResult = { result: message.result, paths: message.paths };
      if (message.seen) done.seen = message.seen;
      if (message.changes) done.changes = message.changes;
      job.resolve(done);
    } else {
      job.reject(new UnknownToolError(job.name));
    }
    this.#dispatch();
  }
}

/** What a call that was cancelled answers. */
function cancelled(name: string): ToolResult {
  return errorResult("cancelled", `${name} was cancelled`);
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
  return { slot: { worker, outbox, inbox, job: undefined, ready: true }, ...(await ready) };
}

/** Send to a worker: through shared memory, or by postMessage when too large. */
function send(slot: Slot, message: ToWorker): void {
  if (slot.outbox.send(message)) return;
  slot.worker.postMessage(message);
  slot.outbox.announce();
}
