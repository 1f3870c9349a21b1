/**
 * The events of one HTTP session's SSE streams, kept so that a client can
 * resume a stream (`Last-Event-ID`): a stream the server closed (SSE
 * polling) or one whose connection dropped. Bounded in count and bytes (the
 * oldest go first), and a stream's events are dropped a minute after its
 * answer was sent: a client resumes within seconds or not at all.
 *
 * @module
 */

import type { EventId, EventStore, JSONRPCMessage, StreamId } from "@modelcontextprotocol/server";

/** The most events one session keeps. */
const MAX_EVENTS = 256;

/** The most bytes (characters of JSON) one session's kept events hold. */
const MAX_BYTES = 1024 * 1024;

/** How long a stream's events are kept after its answer was sent. */
const ANSWERED_KEEP_MS = 60_000;

interface Kept {
  id: EventId;
  stream: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/** A bounded in-memory event store for one session. */
export class BoundedEventStore implements EventStore {
  #events: Kept[] = [];
  #bytes = 0;
  #next = 0;
  /** How many kept events each stream has. */
  #perStream = new Map<StreamId, number>();
  /**
   * Streams whose answer was sent, and when, oldest first: expiry looks only
   * at the front, so a store costs the same however many streams a long
   * session has answered.
   */
  #answered = new Map<StreamId, number>();
  #now: () => number;

  /** @param now The clock (tests inject one). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** How many events are kept. */
  get size(): number {
    return this.#events.length;
  }

  /** @inheritdoc */
  storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.#dropAnswered();
    const id = `${stream}_${++this.#next}`;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ id, stream, message, bytes });
    this.#bytes += bytes;
    this.#perStream.set(stream, (this.#perStream.get(stream) ?? 0) + 1);
    if (isAnswer(message)) {
      this.#answered.delete(stream);
      this.#answered.set(stream, this.#now());
    }
    while (
      this.#events.length > MAX_EVENTS || (this.#bytes > MAX_BYTES && this.#events.length > 1)
    ) {
      this.#forget(this.#events.shift()!);
    }
    return Promise.resolve(id);
  }

  /** @inheritdoc */
  getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.#events.find((event) => event.id === id)?.stream);
  }

  /** @inheritdoc */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const at = this.#events.findIndex((event) => event.id === lastEventId);
    if (at === -1) {
      throw new RangeError(`Cannot resume after event "${lastEventId}": it is no longer kept`);
    }
    const { stream } = this.#events[at]!;
    for (const event of this.#events.slice(at + 1)) {
      if (event.stream === stream) await send(event.id, event.message);
    }
    return stream;
  }

  /** An event left the store: its bytes and its stream's count go with it. */
  #forget(event: Kept): void {
    this.#bytes -= event.bytes;
    const left = (this.#perStream.get(event.stream) ?? 1) - 1;
    if (left > 0) {
      this.#perStream.set(event.stream, left);
    } else {
      this.#perStream.delete(event.stream);
      this.#answered.delete(event.stream);
    }
  }

  /** Drop the events of streams answered over a minute ago. */
  #dropAnswered(): void {
    const before = this.#now() - ANSWERED_KEEP_MS;
    const expired = new Set<StreamId>();
    for (const [stream, at] of this.#answered) {
      if (at >= before) break;
      expired.add(stream);
    }
    if (expired.size === 0) return;
    const kept: Kept[] = [];
    for (const event of this.#events) {
      if (expired.has(event.stream)) this.#forget(event);
      else kept.push(event);
    }
    // Each expired stream's last event went, and its entry with it (#forget).
    this.#events = kept;
  }
}

/** A response: the stream's answer. */
function isAnswer(message: JSONRPCMessage): boolean {
  return !("method" in message) && "id" in message && ("result" in message || "error" in message);
}
