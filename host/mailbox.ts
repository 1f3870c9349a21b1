/**
 * A one-way mailbox between the host and a tool worker over shared memory.
 *
 * Measured here, a `postMessage` round trip between Deno threads costs about
 * 200 µs on an idle machine (each hop wakes a parked thread through the
 * runtime), while `Atomics.waitAsync` on shared memory wakes the other side in
 * a few microseconds. Calls and results are small JSON, so they travel
 * through a single-slot box in a `SharedArrayBuffer`; anything larger than
 * the box falls back to `postMessage`.
 *
 * @module
 */

/** The default box size: messages larger than this go by `postMessage`. */
export const MAILBOX_BYTES = 256 * 1024;

const STATE = 0; // 0: empty, 1: full
const LENGTH = 1;
const CLOSED = 2;
const HEADER_BYTES = 16;
/**
 * How long a thread that expects a message soon polls for it before sleeping.
 * A sleeping thread on a virtual machine takes tens of microseconds to wake
 * (the virtual CPU halts), more than a small tool call takes.
 */
const SPIN_MS = 0.3;

/** How many microtask turns to give in-flight work before waiting through the event loop. */
const MICROTASK_TURNS = 64;
/** How long an idle worker blocks before letting its event loop run. */
const IDLE_BLOCK_MS = 20;

/**
 * Poll a mailbox's state until it is full or the time is up.
 *
 * @returns Whether a message is waiting.
 */
function spinUntilFull(header: Int32Array, ms: number): boolean {
  const until = performance.now() + ms;
  do {
    if (Atomics.load(header, STATE) === 1) return true;
  } while (performance.now() < until);
  return Atomics.load(header, STATE) === 1;
}

/** One direction of a host–worker channel. */
export class Mailbox {
  #header: Int32Array;
  #body: Uint8Array;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();

  /**
   * @param buffer A buffer made by {@linkcode Mailbox.buffer}, shared by both sides.
   */
  constructor(buffer: SharedArrayBuffer) {
    this.#header = new Int32Array(buffer, 0, 4);
    this.#body = new Uint8Array(buffer, HEADER_BYTES);
  }

  /**
   * Make the shared memory for a mailbox.
   *
   * @param bytes The largest message it carries.
   * @returns The buffer to give both sides.
   */
  static buffer(bytes: number = MAILBOX_BYTES): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + bytes);
  }

  /**
   * Send a JSON-safe message if the box is free.
   *
   * @param message The message.
   * @returns False when the box is full, closed, or the message too large (send it another way).
   */
  send(message: unknown): boolean {
    // The box holds one message. When it is still full (many calls in flight),
    // the caller sends by postMessage instead, which queues without waiting.
    if (Atomics.load(this.#header, STATE) !== 0 || Atomics.load(this.#header, CLOSED) === 1) {
      return false;
    }
    const bytes = this.#encoder.encode(JSON.stringify(message));
    if (bytes.length > this.#body.length) return false;
    this.#put(bytes);
    return true;
  }

  #put(bytes: Uint8Array): void {
    if (Atomics.load(this.#header, CLOSED) === 1) return;
    this.#body.set(bytes);
    Atomics.store(this.#header, LENGTH, bytes.length);
    Atomics.store(this.#header, STATE, 1);
    Atomics.notify(this.#header, STATE);
  }

  /**
   * Receive messages until the mailbox is closed.
   *
   * @param handle Called with each message, in order.
   * @param idle When it returns true (nothing else to do on this thread), wait
   *   by blocking the thread briefly instead of through the event loop: a
   *   blocked thread wakes in microseconds, a parked event loop takes far
   *   longer. Only for workers; the main thread must never block.
   * @returns Resolves when the mailbox is closed.
   */
  async listen(
    handle: (message: unknown) => void,
    idle: () => boolean = () => false,
  ): Promise<void> {
    for (;;) {
      if (Atomics.load(this.#header, CLOSED) === 1) return;
      if (Atomics.load(this.#header, STATE) === 0) {
        // Work that needs no I/O finishes within a few microtask turns: let it, then look again.
        for (let turn = 0; turn < MICROTASK_TURNS && !idle(); turn++) await Promise.resolve();
        if (idle()) {
          if (spinUntilFull(this.#header, SPIN_MS)) continue;
          if (Atomics.wait(this.#header, STATE, 0, IDLE_BLOCK_MS) === "timed-out") {
            // Let timers and other messages of this thread run now and then.
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          continue;
        }
        const wait = Atomics.waitAsync(this.#header, STATE, 0, 1_000);
        if (wait.async) await wait.value;
        continue;
      }
      const length = Atomics.load(this.#header, LENGTH);
      const text = this.#decoder.decode(this.#body.slice(0, length));
      Atomics.store(this.#header, STATE, 0);
      Atomics.notify(this.#header, STATE);
      handle(JSON.parse(text));
    }
  }

  /**
   * Wait a short while, blocking, for the next message and take it. For the
   * host's main thread when a single call is in flight: the worker's answer
   * usually comes within a fraction of a millisecond, and a blocked thread
   * wakes at once where a parked event loop would take far longer.
   *
   * @param timeoutMs The longest wait.
   * @returns The message, or `undefined` when none came in time.
   */
  take(timeoutMs: number): unknown {
    if (!spinUntilFull(this.#header, Math.min(timeoutMs, SPIN_MS))) {
      Atomics.wait(this.#header, STATE, 0, Math.max(0, timeoutMs - SPIN_MS));
    }
    if (Atomics.load(this.#header, STATE) === 0 || Atomics.load(this.#header, CLOSED) === 1) {
      return undefined;
    }
    const length = Atomics.load(this.#header, LENGTH);
    const text = this.#decoder.decode(this.#body.slice(0, length));
    Atomics.store(this.#header, STATE, 0);
    Atomics.notify(this.#header, STATE);
    return JSON.parse(text);
  }

  /** Close the mailbox: the listener returns and pending sends are dropped. */
  close(): void {
    Atomics.store(this.#header, CLOSED, 1);
    Atomics.notify(this.#header, STATE);
  }
}
