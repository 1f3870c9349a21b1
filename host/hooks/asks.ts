/**
 * Seed 001's blocking ask: `POST /api/ask` waits until someone answers at
 * `POST /api/ask/respond` with its `request_id` (200 with the response), or
 * 60 s pass (504). An `ask_received` event carries the id and the data.
 *
 * @module
 */

import { eventValue, type HookEvents } from "../approvals/mod.ts";

/** How long an ask waits by default (seed 001's). */
export const ASK_TIMEOUT_MS = 60_000;

/** The most asks waiting at once (more are refused with 429). */
export const MAX_ASKS = 64;

/** An ask waiting, as `GET /api/overview` shows it. */
export interface WaitingAsk {
  /** Its id. */
  request_id: string;
  /** When it was asked (UTC ISO). */
  asked_at: string;
  /** What is asked (cut as events cut it). */
  data: unknown;
}

/** The asks waiting for a response. */
export class Asks {
  #waiting = new Map<string, { answer: (response: unknown) => void; shown: WaitingAsk }>();
  #events: HookEvents;
  #timeoutMs: number;

  /**
   * @param events Where `ask_received` and `ask_answered` go.
   * @param timeoutMs How long an ask waits.
   */
  constructor(events: HookEvents, timeoutMs = ASK_TIMEOUT_MS) {
    this.#events = events;
    this.#timeoutMs = timeoutMs;
  }

  /** The asks waiting now, oldest first. */
  pending(): WaitingAsk[] {
    return [...this.#waiting.values()].map((each) => ({ ...each.shown }));
  }

  /**
   * Ask, and wait for the response.
   *
   * @param data What is asked (any JSON).
   * @param signal Aborted when the asker goes away.
   * @returns The response, `timeout` (also when the asker went away), or `busy` ({@linkcode MAX_ASKS} wait already).
   */
  ask(data: unknown, signal?: AbortSignal): Promise<{ response: unknown } | "timeout" | "busy"> {
    if (this.#waiting.size >= MAX_ASKS) return Promise.resolve("busy");
    if (signal?.aborted) return Promise.resolve("timeout");
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      const done = (result: { response: unknown } | "timeout") => {
        if (!this.#waiting.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", gone);
        resolve(result);
      };
      const gone = () => done("timeout");
      const timer = setTimeout(gone, this.#timeoutMs);
      const shown = { request_id: id, asked_at: new Date().toISOString(), data: eventValue(data) };
      this.#waiting.set(id, { answer: (response) => done({ response }), shown });
      signal?.addEventListener("abort", gone, { once: true });
      this.#events.emit("ask_received", { request_id: id, data: shown.data });
    });
  }

  /**
   * Answer an ask.
   *
   * @param id Its `request_id`.
   * @param response The response.
   * @returns False when no ask has that id (404).
   */
  respond(id: string, response: unknown): boolean {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return false;
    waiting.answer(response);
    this.#events.emit("ask_answered", { request_id: id });
    return true;
  }
}
