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
  /** Streams whose answer was sent, and when. */
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
    if (isAnswer(message)) this.#answered.set(stream, this.#now());
    while (
      this.#events.length > MAX_EVENTS || (this.#bytes > MAX_BYTES && this.#events.length > 1)
    ) {
      this.#bytes -= this.#events.shift()!.bytes;
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

  /** Drop the events of streams answered over a minute ago. */
  #dropAnswered(): void {
    const before = this.#now() - ANSWERED_KEEP_MS;
    const expired = new Set<StreamId>();
    for (const [stream, at] of this.#answered) {
      if (at < before) expired.add(stream);
    }
    if (expired.size === 0) return;
    for (const stream of expired) this.#answered.delete(stream);
    this.#events = this.#events.filter((event) => !expired.has(event.stream));
    this.#bytes = this.#events.reduce((sum, event) => sum + event.bytes, 0);
  }
}

/** A response: the stream's answer. */
function isAnswer(message: JSONRPCMessage): boolean {
  return !("method" in message) && "id" in message && ("result" in message || "error" in message);
}
