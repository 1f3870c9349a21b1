/**
 * The Hook API's events: a bounded history that readers page through with
 * a cursor (the last sequence number they saw), so that two readers never
 * take each other's events (seed 001's queue was drained by whoever read
 * first).
 *
 * @module
 */

/** One event. */
export interface HookEvent {
  /** Its sequence number: the cursor that reads what comes after it. */
  readonly seq: number;
  /** When it happened (UTC ISO). */
  readonly ts: string;
  /** What happened: `call_started`, `call_waiting`, `call_resumed`, `call_ended`, `approval_asked`, `approval_answered`, `ask_received`, `ask_answered`, `status_changed`. */
  readonly type: string;
  /** Its details. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** A page of events. */
export interface EventPage {
  /** The events after the cursor, oldest first. */
  events: HookEvent[];
  /** The cursor for the next page: the last event's number (the one given when there is none). */
  cursor: number;
  /** Events after the cursor that the history no longer holds (the reader was too slow). */
  missed: number;
}

/** The most characters of one value an event carries whole (arguments, an ask's data). */
export const MAX_EVENT_VALUE_CHARS = 16_384;

/**
 * A value as an event carries it: whole when its JSON is short, else a
 * preview of it with its length (so that the history stays bounded).
 *
 * @param value Any JSON value.
 * @param max The most characters kept.
 * @returns The value, or `{_preview, _chars}`.
 */
export function eventValue(value: unknown, max = MAX_EVENT_VALUE_CHARS): unknown {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= max ? value : { _preview: text.slice(0, max), _chars: text.length };
}

/** The most events kept. */
export const MAX_EVENTS = 2000;

/** The most events one page gives. */
export const MAX_PAGE = 500;

/** The bounded, cursor-read history of events. */
export class HookEvents {
  #events: HookEvent[] = [];
  #seq = 0;
  #waiters = new Set<() => void>();
  #now: () => Date;
  #max: number;

  /**
   * An empty event list.
   *
   * @param now The clock.
   * @param max The most events kept.
   */
  constructor(now: () => Date = () => new Date(), max = MAX_EVENTS) {
    this.#now = now;
    this.#max = max;
  }

  /** The last event's number (0 before the first). */
  get cursor(): number {
    return this.#seq;
  }

  /**
   * Record an event and wake the readers waiting for one.
   *
   * @param type What happened.
   * @param data Its details.
   * @returns The event.
   */
  emit(type: string, data: Record<string, unknown>): HookEvent {
    const event = Object.freeze({ seq: ++this.#seq, ts: this.#now().toISOString(), type, data });
    this.#events.push(event);
    if (this.#events.length > this.#max) this.#events.splice(0, this.#events.length - this.#max);
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
    return event;
  }

  /**
   * The events after a cursor.
   *
   * @param cursor The last event the reader saw (0: from the oldest kept).
   * @param limit The most to give.
   * @returns The page.
   */
  after(cursor: number, limit = MAX_PAGE): EventPage {
    // A cursor past the last event is from before a restart: read from the oldest kept.
    const from = cursor > this.#seq || cursor < 0 ? 0 : Math.floor(cursor);
    const first = this.#events[0]?.seq ?? this.#seq + 1;
    const start = Math.max(0, from + 1 - first);
    const events = this.#events.slice(start, start + Math.max(1, Math.min(limit, MAX_PAGE)));
    return {
      events,
      cursor: events.at(-1)?.seq ?? from,
      missed: Math.max(0, first - (from + 1)),
    };
  }

  /**
   * The events after a cursor, waiting for one when there is none yet.
   *
   * @param cursor The last event the reader saw.
   * @param waitMs The longest wait for a first event.
   * @param signal Stops the wait.
   * @param limit The most to give.
   * @returns The page (empty when the wait ended with none).
   */
  async next(
    cursor: number,
    waitMs: number,
    signal?: AbortSignal,
    limit = MAX_PAGE,
  ): Promise<EventPage> {
    if (cursor === this.#seq && waitMs > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        this.#waiters.add(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
    return this.after(cursor, limit);
  }
}
