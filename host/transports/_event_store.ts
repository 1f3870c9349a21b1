/**
 * The events of one HTTP session's SSE streams, kept so that a client can
 * resume a stream the server closed (`Last-Event-ID`), bounded in count
 * and bytes: the oldest go first.
 *
 * @module
 */

import type { EventId, EventStore, JSONRPCMessage, StreamId } from "@modelcontextprotocol/server";

/** The most events one session keeps. */
const MAX_EVENTS = 1000;

/** The most bytes (of JSON) one session's kept events hold. */
const MAX_BYTES = 4 * 1024 * 1024;

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

  /** @inheritdoc */
  storeEvent(stream: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${stream}_${++this.#next}`;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ id, stream, message, bytes });
    this.#bytes += bytes;
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
}
