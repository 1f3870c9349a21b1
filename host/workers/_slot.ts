/**
 * One worker slot of the pool: a tool worker started with the policy's
 * permissions, the two mailboxes to and from it, and the call it runs (one
 * at a time). A slot whose worker hangs or dies is retired and gets a fresh
 * worker in its place. A slot may also start empty, its worker started only
 * when a call needs it ({@linkcode Slot.later}).
 *
 * @module
 */

import type { Policy } from "../../security/policy.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";
import type { Mailbox } from "./mailbox.ts";
import type { PoolOptions } from "./pool_types.ts";
import type { Job } from "./_job.ts";
import { type Ready, type Spawned, spawnWorker } from "./_spawn.ts";

/** Where a slot's worker's messages and crash go. */
export interface SlotEvents {
  /** A message from the worker, by either path. */
  message(message: FromWorker): void;
  /** The worker crashed, with the error's message. */
  crash(message: string): void;
}

/** One worker of the pool, and the call it runs. */
export class Slot {
  #spawn: () => Spawned;
  /** The worker and its mailboxes; none while the slot waits to be woken. */
  #worker: Worker | undefined;
  #outbox: Mailbox | undefined;
  #inbox: Mailbox | undefined;
  #job: Job | undefined;
  /** False while a worker starts (or when it could not start, or none was asked for yet): no call goes there. */
  #ready: boolean;
  /** No worker was started yet: {@linkcode Slot.wake} starts one. */
  #dormant: boolean;
  /** Its replacement could not start: it never takes a call again. */
  #lost = false;
  /** Workers started in place of one that crashed, hung or would not stop. */
  #restarts = 0;
  #events: SlotEvents | undefined;

  private constructor(spawn: () => Spawned, first: Spawned | undefined) {
    this.#spawn = spawn;
    this.#worker = first?.worker;
    this.#outbox = first?.outbox;
    this.#inbox = first?.inbox;
    this.#ready = first !== undefined;
    this.#dormant = first === undefined;
  }

  /**
   * Start a worker and wait until it is ready.
   *
   * @param policy The policy (it sets the worker's permissions).
   * @param options The pool's options.
   * @param started A worker already started with the same policy and options, to use instead.
   * @returns The slot, and what its worker said when ready.
   * @throws {Error} When the worker failed to start.
   */
  static async start(
    policy: Policy,
    options: PoolOptions,
    started?: Spawned,
  ): Promise<{ slot: Slot; ready: Ready }> {
    const spawn = () => spawnWorker(policy, options);
    const first = started ?? spawn();
    return { slot: new Slot(spawn, first), ready: await first.ready };
  }

  /**
   * A slot with no worker yet: it takes no call until {@linkcode Slot.wake}
   * started one. Each worker loads every tool, which costs about as much CPU
   * as the rest of the host's start-up; a second one is started when a call
   * would otherwise wait behind a busy worker.
   *
   * @param policy The policy (it sets the worker's permissions).
   * @param options The pool's options.
   * @returns The empty slot.
   */
  static later(policy: Policy, options: PoolOptions): Slot {
    return new Slot(() => spawnWorker(policy, options), undefined);
  }

  /** Whether no worker was started in it yet. */
  get dormant(): boolean {
    return this.#dormant;
  }

  /**
   * Start the slot's first worker.
   *
   * @returns Resolves when it is ready (call {@linkcode Slot.resume} then).
   * @throws {Error} When it failed to start: the slot is lost for good.
   */
  wake(): Promise<void> {
    this.#dormant = false;
    return this.#start();
  }

  /** How many workers were started in place of one that crashed, hung or would not stop. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The call this worker runs, if any. */
  get job(): Job | undefined {
    return this.#job;
  }

  /** Whether the worker is up and may take calls (when it has none). */
  get ready(): boolean {
    return this.#ready;
  }

  /** Whether its replacement could not start: it never takes a call again. */
  get lost(): boolean {
    return this.#lost;
  }

  /**
   * Give the worker a call.
   *
   * @param job The call; the worker must be free.
   */
  run(job: Job): void {
    this.#job = job;
    this.send(job.message);
  }

  /**
   * Forget the call the worker ran (it was answered, or is being answered).
   *
   * @returns The call, if there was one.
   */
  release(): Job | undefined {
    const job = this.#job;
    this.#job = undefined;
    return job;
  }

  /**
   * Send to the worker: through shared memory, or by postMessage when too large.
   *
   * @param message The message.
   */
  send(message: ToWorker): void {
    const [worker, outbox] = [this.#worker, this.#outbox];
    if (worker === undefined || outbox === undefined) throw new Error("the slot has no worker");
    if (outbox.send(message)) return;
    worker.postMessage(message);
    outbox.announce();
  }

  /**
   * Block for the worker's next message through shared memory, briefly.
   *
   * @param timeoutMs The longest wait.
   * @returns The message, or `undefined` when none came in time.
   */
  take(timeoutMs: number): FromWorker | undefined {
    return this.#inbox?.take(timeoutMs) as FromWorker | undefined;
  }

  /**
   * Follow the worker's messages and crash, and those of every worker that replaces it.
   *
   * @param events Where they go.
   */
  listen(events: SlotEvents): void {
    this.#events = events;
    this.#attach();
  }

  /** Terminate the worker and close its mailboxes. */
  terminate(): void {
    this.#worker?.terminate();
    this.#outbox?.close();
    this.#inbox?.close();
  }

  /**
   * Terminate the worker and take no calls until {@linkcode Slot.respawn} made another.
   *
   * @returns The call it ran, for the caller to answer.
   */
  retire(): Job | undefined {
    this.terminate();
    const job = this.release();
    this.#ready = false;
    return job;
  }

  /**
   * Start a fresh worker in place of the retired one.
   *
   * @returns Resolves when it is ready (call {@linkcode Slot.resume} then).
   * @throws {Error} When it failed to start: the slot is lost for good.
   */
  respawn(): Promise<void> {
    this.#restarts++;
    return this.#start();
  }

  #start(): Promise<void> {
    const fresh = this.#spawn();
    this.#worker = fresh.worker;
    this.#outbox = fresh.outbox;
    this.#inbox = fresh.inbox;
    return fresh.ready.then(
      () => {},
      (error) => {
        this.#lost = true;
        throw error;
      },
    );
  }

  /** Take calls again, with the fresh worker listened to. */
  resume(): void {
    this.#ready = true;
    this.#attach();
  }

  /** Listen to the current worker; messages from one since replaced are dropped. */
  #attach(): void {
    const [events, inbox, worker] = [this.#events, this.#inbox, this.#worker];
    if (events === undefined || inbox === undefined || worker === undefined) return;
    void inbox.listen((message) => {
      if (this.#inbox === inbox) events.message(message as FromWorker);
    });
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (this.#worker === worker) events.message(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (this.#worker === worker) events.crash(event.message);
    };
  }
}
