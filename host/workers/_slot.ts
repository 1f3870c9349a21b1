/**
 * One worker slot of the pool: a tool worker started with the policy's
 * permissions, the two mailboxes to and from it, and the call it runs (one
 * at a time). A slot whose worker hangs or dies is retired and gets a fresh
 * worker in its place.
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
  #worker: Worker;
  #outbox: Mailbox;
  #inbox: Mailbox;
  #job: Job | undefined;
  /** False while a replacement worker starts (or when it could not start): no call goes there. */
  #ready = true;
  /** Its replacement could not start: it never takes a call again. */
  #lost = false;
  #events: SlotEvents | undefined;

  private constructor(spawn: () => Spawned, first: Spawned) {
    this.#spawn = spawn;
    this.#worker = first.worker;
    this.#outbox = first.outbox;
    this.#inbox = first.inbox;
  }

  /**
   * Start a worker and wait until it is ready.
   *
   * @param policy The policy (it sets the worker's permissions).
   * @param options The pool's options.
   * @returns The slot, and what its worker said when ready.
   * @throws {Error} When the worker failed to start.
   */
  static async start(policy: Policy, options: PoolOptions): Promise<{ slot: Slot; ready: Ready }> {
    const spawn = () => spawnWorker(policy, options);
    const first = spawn();
    return { slot: new Slot(spawn, first), ready: await first.ready };
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
    if (this.#outbox.send(message)) return;
    this.#worker.postMessage(message);
    this.#outbox.announce();
  }

  /**
   * Block for the worker's next message through shared memory, briefly.
   *
   * @param timeoutMs The longest wait.
   * @returns The message, or `undefined` when none came in time.
   */
  take(timeoutMs: number): FromWorker | undefined {
    return this.#inbox.take(timeoutMs) as FromWorker | undefined;
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
    this.#worker.terminate();
    this.#outbox.close();
    this.#inbox.close();
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
    const events = this.#events;
    if (events === undefined) return;
    const inbox = this.#inbox;
    void inbox.listen((message) => {
      if (this.#inbox === inbox) events.message(message as FromWorker);
    });
    const worker = this.#worker;
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (this.#worker === worker) events.message(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (this.#worker === worker) events.crash(event.message);
    };
  }
}
