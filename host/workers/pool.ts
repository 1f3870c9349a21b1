/**
 * The tool worker pool: a few workers with the policy's permissions. Each
 * worker runs one call at a time; calls wait in one queue and go to whichever
 * worker is free first, so a call never waits behind a busy worker while
 * another is free. A worker that hangs or dies is replaced without taking
 * the host down, and the calls still waiting run on the others.
 *
 * @module
 */

import type { Policy } from "../../security/policy.ts";
import type { LandlockStatus } from "../../security/landlock.ts";
import { familyNamed } from "../../tools/families.ts";
import type { ToolFamily } from "../../tools/family.ts";
import { errorResult, type ToolDescriptor } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { FileChange, Probe, RipgrepStatus, WatchedFile } from "./protocol.ts";
import type { PoolCall, PoolOptions, PoolResult } from "./pool_types.ts";
import { cancelled, type Job, newJob } from "./_job.ts";
import { CallQueue } from "./_queue.ts";
import { awaitBriefly, BriefWaits, receive, type Receiver } from "./_receive.ts";
import { SideRequests } from "./_side_requests.ts";
import { Slot } from "./_slot.ts";
import type { Ready, Spawned } from "./_spawn.ts";

export type { PoolCall, PoolOptions, PoolResult } from "./pool_types.ts";

/** How long a call that was asked to stop may take before its worker is terminated. */
const GRACE_MS = 1_000;

/** A pool of tool workers. */
export class WorkerPool {
  /** The tools the workers offer. */
  readonly tools: ToolDescriptor[];
  /** Whether the workers' threads are confined by Landlock. */
  readonly landlock: LandlockStatus;
  /** Whether ripgrep runs in the workers, and why not. */
  readonly ripgrep: RipgrepStatus;
  /** Each tool's family, by tool name (tools from a test's own module have none). */
  readonly families: Readonly<Record<string, string>>;
  #names: ReadonlySet<string>;
  #options: PoolOptions;
  #slots: Slot[];
  #queue: CallQueue;
  #requests = new SideRequests();
  #receiver: Receiver;
  #nextId = 1;
  #briefWaits = new BriefWaits();
  #closed = false;

  private constructor(options: PoolOptions, slots: Slot[], ready: Ready) {
    this.tools = ready.tools;
    this.landlock = ready.landlock;
    this.ripgrep = ready.ripgrep;
    this.families = ready.families;
    this.#names = new Set(ready.tools.map((tool) => tool.name));
    this.#options = options;
    this.#slots = slots;
    this.#queue = new CallQueue(slots, {
      callTimeoutMs: options.callTimeoutMs,
      overdue: (slot, job) => this.#stop(slot, job, "timeout"),
      prefersCodeWorker: (name) => this.familyOf(name)?.prefersCodeWorker === true,
    });
    this.#receiver = {
      logger: options.logger,
      requests: this.#requests,
      freed: () => this.#queue.dispatch(),
      processes: options.subprocesses && {
        log: options.subprocesses,
        confinement: ready.landlock.active ? "landlock" : "unconfined",
      },
    };
    for (const slot of slots) {
      slot.listen({
        message: (message) => receive(slot, message, this.#receiver),
        crash: (why) => this.#crashed(slot, why),
      });
    }
  }

  /**
   * Whether the workers offer a tool of this name.
   *
   * @param name The tool's name.
   * @returns True when they do.
   */
  runs(name: string): boolean {
    return this.#names.has(name);
  }

  /**
   * The family of a tool the workers run, as its declaration says.
   *
   * @param name The tool's name.
   * @returns The family, or `undefined` (a test's own tools have none).
   */
  familyOf(name: string): ToolFamily | undefined {
    return familyNamed(this.families[name]);
  }

  /**
   * Start the workers and wait until they are ready.
   *
   * @param policy The policy (it sets the workers' permissions).
   * @param options Size, tools, timeouts.
   * @param started The first worker, when it was started ahead (`spawnWorker`, same policy and options).
   * @returns The ready pool.
   * @throws {Error} When a worker failed to start.
   */
  static async start(policy: Policy, options: PoolOptions, started?: Spawned): Promise<WorkerPool> {
    const size = Math.max(1, Math.floor(options.size));
    const first = await Slot.start(policy, options, started);
    const later = Array.from({ length: size - 1 }, () => Slot.later(policy, options));
    return new WorkerPool(options, [first.slot, ...later], first.ready);
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
    const refused = this.#refusal(name, call);
    if (refused) return Promise.resolve({ result: refused, paths: [] });
    const id = this.#nextId++;
    return new Promise<PoolResult>((resolve, reject) => {
      const cancel = (job: Job) => this.#cancel(job);
      const job = newJob({ id, name, args, call, resolve, reject, cancel });
      this.#queue.add(job);
      const slot = this.#queue.runningOn(job);
      if (!slot) this.#wake();
      if (slot && this.#queue.inFlight() === 1) {
        this.#options.whileWaiting?.();
        if (this.#briefWaits.worthIt()) {
          this.#briefWaits.ended(
            awaitBriefly(slot, job, (message) => receive(slot, message, this.#receiver)),
          );
        }
      }
    });
  }

  /**
   * Have the first worker bring the roots' symbol index up to date in the background, once the
   * host started (`tools/symbols/_prepare.ts`).
   */
  prepareSymbols(): void {
    try {
      this.#slots[0]?.send({ type: "prepare" });
    } catch { /* No worker in the slot (being replaced): its replacement starts cold. */ }
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
    return this.#requests.probe(this.#slots[0]!, { id: this.#nextId++, probe, target });
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
    const timeoutMs = this.#options.callTimeoutMs;
    return this.#requests.check(asked, { id: this.#nextId++, watch, timeoutMs });
  }

  /** How many workers were started in place of one that crashed, hung or would not stop. */
  get restarts(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.restarts, 0);
  }

  /** Terminate every worker; calls in flight or waiting fail. */
  close(): void {
    this.#closed = true;
    this.#queue.close();
    this.#requests.finishAll();
    const shutDown = errorResult("unavailable", "the host shut down during the call");
    for (const slot of this.#slots) {
      slot.terminate();
      slot.release()?.resolve({ result: shutDown, paths: [] });
    }
    for (const job of this.#queue.drain()) job.resolve({ result: shutDown, paths: [] });
  }

  /** What a call is answered at once, without running, if it is. */
  #refusal(name: string, call: PoolCall): ToolResult | undefined {
    if (this.#closed || this.#slots.every((slot) => slot.lost)) {
      const why = this.#closed ? "the host is shutting down" : "no tool worker could be restarted";
      return errorResult("unavailable", why);
    }
    return call.signal?.aborted ? cancelled(name) : undefined;
  }

  /** A client cancelled: a waiting call is dropped, a running one asked to stop. */
  #cancel(job: Job): void {
    if (this.#queue.withdraw(job)) {
      job.resolve({ result: cancelled(job.name), paths: [] });
      return;
    }
    const slot = this.#queue.runningOn(job);
    if (slot) this.#stop(slot, job, "cancelled");
  }

  /** Ask a call to stop; if it does not within the grace period, replace its worker. */
  #stop(slot: Slot, job: Job, reason: "cancelled" | "timeout"): void {
    if (job.stopping) return;
    job.stopping = true;
    slot.send({ type: "cancel", id: job.id, reason });
    const timer = setTimeout(() => {
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
    // The running worker keeps the process alive while it matters; a closed pool's never does.
    Deno.unrefTimer(timer);
  }

  /** A worker crashed: log it, answer its call, and replace it. */
  #crashed(slot: Slot, why: string): void {
    this.#options.logger.log("error", "A tool worker crashed; it was replaced", why);
    const name = slot.job?.name ?? "the call";
    this.#replace(
      slot,
      errorResult(
        "internal_error",
        `${name} failed unexpectedly; the details are in the host's log`,
      ),
    );
  }

  /**
   * Terminate a slot's worker, answer its call, and start a fresh one. Calls
   * still waiting are not the worker's: they go to whichever worker is free first.
   */
  #replace(slot: Slot, answer: ToolResult): void {
    slot.retire()?.resolve({ result: answer, paths: [] });
    this.#requests.forget(slot);
    if (this.#closed) return;
    this.#takeCalls(slot, slot.respawn());
  }

  /** A call waits and every worker is busy: start the first slot that has none yet, if any. */
  #wake(): void {
    const dormant = this.#slots.find((slot) => slot.dormant);
    if (dormant && !this.#closed) this.#takeCalls(dormant, dormant.wake());
  }

  /** Once a slot's new worker is ready, hand it the waiting calls. */
  #takeCalls(slot: Slot, started: Promise<void>): void {
    started.then(
      () => {
        if (this.#closed) return slot.terminate();
        slot.resume();
        this.#queue.dispatch();
      },
      (error) => this.#lost(error),
    );
  }

  /** A replacement worker could not start; when none is left, the waiting calls fail. */
  #lost(error: unknown): void {
    this.#options.logger.log("error", "A tool worker failed to restart", String(error));
    this.#wake();
    if (!this.#slots.every((each) => each.lost)) return;
    const none = errorResult("unavailable", "no tool worker could be restarted");
    for (const waiting of this.#queue.drain()) waiting.resolve({ result: none, paths: [] });
  }
}
