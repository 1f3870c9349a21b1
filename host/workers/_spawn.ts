/**
 * Starting one tool worker: made with its permissions (`_confinement.ts`),
 * given its init message and the shared memory of its two mailboxes, and
 * followed until it says it is ready.
 *
 * @module
 */

import type { Policy } from "../../security/policy.ts";
import type { LandlockStatus } from "../../security/landlock.ts";
import type { ToolDescriptor } from "../../tools/registry.ts";
import type { FromWorker, RipgrepStatus, ToWorker } from "./protocol.ts";
import { Mailbox, threadYielder } from "./mailbox.ts";
import { workerConfinement } from "./_confinement.ts";
import type { SpawnOptions } from "./pool_types.ts";

/** What a worker says once it is ready. */
export interface Ready {
  /** The tools it offers. */
  tools: ToolDescriptor[];
  /** Each tool's family, by tool name. */
  families: Record<string, string>;
  /** Whether its thread is confined by Landlock. */
  landlock: LandlockStatus;
  /** Whether ripgrep runs in it, and why not. */
  ripgrep: RipgrepStatus;
}

/** A worker just made, and when it will be ready. */
export interface Spawned {
  /** The worker. */
  worker: Worker;
  /** Host → worker messages (fast path; large ones go by postMessage). */
  outbox: Mailbox;
  /** Worker → host messages. */
  inbox: Mailbox;
  /** Resolves with its ready message; rejects when it fails to start. */
  ready: Promise<Ready>;
}

/**
 * Make a worker with the policy's permissions and send it its init message.
 *
 * @param policy The policy.
 * @param options What the pool's options say of its permissions and tools.
 * @returns The worker, its mailboxes, and when it will be ready.
 */
export function spawnWorker(policy: Policy, options: SpawnOptions): Spawned {
  const { permissions, setup } = workerConfinement(policy, options);
  const worker = new Worker(new URL("./tool_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions },
  } as WorkerOptions);
  const ready = whenReady(worker);
  const toWorker = Mailbox.buffer();
  const fromWorker = Mailbox.buffer();
  worker.postMessage(
    { type: "init", mailboxes: { toWorker, fromWorker }, ...setup } satisfies ToWorker,
  );
  // The host's thread polls its inbox for a lone call's answer (see `awaitBriefly`).
  const inbox = new Mailbox(fromWorker, threadYielder(setup.libc));
  return { worker, outbox: new Mailbox(toWorker), inbox, ready };
}

/** Resolves with the worker's ready message; rejects when it fails to start. */
function whenReady(worker: Worker): Promise<Ready> {
  return new Promise<Ready>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (event.data.type === "ready") {
        const { tools, families, landlock, ripgrep } = event.data;
        resolve({ tools, families, landlock, ripgrep });
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      reject(new Error(`The tool worker failed to start: ${event.message}`));
    };
  });
}
