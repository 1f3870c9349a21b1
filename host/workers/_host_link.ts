/**
 * A tool worker's line to the host: messages go through the shared mailbox
 * when it is free and they fit, else by `postMessage`; tools' warnings and
 * errors go to the host's log.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { Logger } from "../../tools/tool.ts";
import type { FromWorker } from "./protocol.ts";
import type { Mailbox } from "./mailbox.ts";

/** The worker's side of the channel to the host, once init gave it the mailboxes. */
export class HostLink {
  #outbox: Mailbox | null = null;
  #inbox: Mailbox | null = null;

  /** Where the tools' warnings and errors go: the host's log. */
  readonly logger: Logger = {
    warn: (message, detail) =>
      this.post({ type: "log", level: "warn", message, detail: describe(detail) }),
    error: (message, detail) =>
      this.post({ type: "log", level: "error", message, detail: describe(detail) }),
  };

  /**
   * Send to the host through this mailbox from now on.
   *
   * @param outbox The worker → host mailbox.
   */
  sendThrough(outbox: Mailbox): void {
    this.#outbox = outbox;
  }

  /**
   * Receive from the host through this mailbox from now on.
   *
   * @param inbox The host → worker mailbox.
   */
  receiveThrough(inbox: Mailbox): void {
    this.#inbox = inbox;
  }

  /**
   * Send a message to the host.
   *
   * @param message The message.
   */
  post(message: FromWorker): void {
    if (!this.#outbox?.send(message)) self.postMessage(message);
  }

  /**
   * Whether a message from the host waits (a cancellation, another call).
   *
   * @returns True when one waits.
   */
  waiting(): boolean {
    return this.#inbox?.waiting() ?? false;
  }

  /** A message announced in the mailbox came by `postMessage` (see `Mailbox.announce`). */
  received(): void {
    this.#inbox?.received();
  }
}

/** A log detail as text: an error's stack, a string, or JSON. */
function describe(detail: unknown): string | undefined {
  if (detail === undefined) return undefined;
  if (detail instanceof Error) return detail.stack ?? `${detail.name}: ${detail.message}`;
  return typeof detail === "string" ? detail : JSON.stringify(detail);
}
