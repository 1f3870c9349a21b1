/**
 * The tool worker: runs local tools under the Deno permissions the host gave
 * it (the roots and the state directory, nothing else). One message in, one
 * result out; progress and logs flow back as messages.
 *
 * This module is the worker's entry (the pool starts it by URL, and
 * `deno task compile` includes it); the work is done in `_worker_setup.ts`,
 * `_worker_call.ts` and `_worker_probe.ts`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { ToolError } from "../../security/errors.ts";
import type { ToWorker } from "./protocol.ts";
import { Mailbox, threadYielder } from "./mailbox.ts";
import { checkWatched } from "./watch.ts";
import { HostLink } from "./_host_link.ts";
import { init, type InitMessage, type WorkerState } from "./_worker_setup.ts";
import { IdlePolls, prepareInBackground, runCall } from "./_worker_call.ts";
import { probe } from "./_worker_probe.ts";

/** The worker's messages from the host, and what it made of init. */
class ToolWorker {
  #link = new HostLink();
  #ready: Promise<WorkerState> | undefined;
  #state: WorkerState | undefined;
  /** Probes whose operation is still pending: the thread must not block on its mailbox meanwhile. */
  #probing = 0;
  /** Work of no call under way (preparing the symbol index): nor then. */
  #background = 0;

  /** Receive what comes by `postMessage`: init, and messages too large for the mailbox. */
  listen(): void {
    self.onmessage = (event: MessageEvent<ToWorker>) => {
      // Everything after init that comes this way was announced in the mailbox (see `announce`).
      if (event.data.type !== "init") this.#link.received();
      this.#receive(event.data);
    };
  }

  #receive(message: ToWorker): void {
    if (message.type === "init") this.#init(message);
    else if (message.type === "probe") {
      this.#probing++;
      void probe(message, (answer) => this.#link.post(answer), this.#state?.native)
        .finally(() => this.#probing--);
    } else if (message.type === "check") this.#check(message);
    else if (message.type === "prepare") this.#prepare();
    else if (message.type === "call") this.#call(message);
    else if (message.type === "cancel") this.#cancel(message);
  }

  #init(message: InitMessage): void {
    // Made before init gives up the FFI permission.
    const relax = threadYielder(message.libc);
    this.#link.sendThrough(new Mailbox(message.mailboxes.fromWorker));
    this.#ready = init(message, this.#link).then((made) => (this.#state = made));
    // Block while idle (no call in flight): the next call then wakes this thread at once.
    const inbox = new Mailbox(message.mailboxes.toWorker, relax);
    this.#link.receiveThrough(inbox);
    void inbox.listen(
      (each) => this.#receive(each as ToWorker),
      () =>
        this.#state !== undefined && this.#state.inflight.size === 0 && this.#probing === 0 &&
        this.#background === 0,
      new IdlePolls(() => this.#state),
    );
  }

  #prepare(): void {
    this.#background++;
    void this.#ready?.then(prepareInBackground).catch(() => {}).finally(() => this.#background--);
  }

  #check(message: Extract<ToWorker, { type: "check" }>): void {
    const answer = (made: WorkerState) =>
      this.#link.post({
        type: "checked",
        id: message.id,
        changes: checkWatched(made.fs, message.watch),
      });
    if (this.#state) answer(this.#state);
    else void this.#ready?.then(answer);
  }

  #call(message: Extract<ToWorker, { type: "call" }>): void {
    // Start at once when ready, so the call counts as in flight before the listener waits again.
    // A call that throws rejects unhandled: the worker crashes and the host replaces it.
    if (this.#state) void runCall(this.#state, message);
    else void this.#ready?.then((made) => runCall(made, message));
  }

  #cancel(message: Extract<ToWorker, { type: "cancel" }>): void {
    const reason = message.reason === "timeout"
      ? new ToolError("timeout", "the call ran past its time limit")
      : new ToolError("cancelled", "the client cancelled the call");
    void this.#ready?.then((state) => state.inflight.get(message.id)?.abort(reason));
  }
}

new ToolWorker().listen();
