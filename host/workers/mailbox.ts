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
const POSTED = 3; // messages sent by postMessage instead, not yet received
const HEADER_BYTES = 16;
/**
 * How long a worker that just answered a call polls for the next one before
 * sleeping. A sleeping thread on a virtual machine can take from tens of
 * microseconds to over a millisecond to wake (its virtual CPU halts), more
 * than a small tool call takes, and an agent's calls come in bursts. Measured
 * with `bench/read_file_compare.ts` (2 cores, toolhost / bare server, mean,
 * before the polls yielded, see {@linkcode RELAX_EVERY_MS}): 0.3 ms
 * 1.4-1.55x, 1 ms 1.3-1.7x, 3 ms 1.36-1.45x, 5 ms 1.32-1.33x; not polling at
 * all 1.6-1.7x. The calls slower than 1 ms were mostly a sleeping worker
 * waking late. It costs at most this much CPU time per call, only after a
 * call and only while no other call is in the worker, and the poll yields
 * its CPU to any other thread that wants it. A tool worker stops polling for
 * a while when its polls keep catching nothing (`IdlePolls`,
 * `_worker_call.ts`): calls 10 ms apart took its worker 5.2 ms of CPU each
 * with polls after every call, 1.0 ms with them (`bench/paced_calls_bench.ts`).
 */
export const IDLE_SPIN_MS = 5;
/**
 * How long the host's thread polls for a lone call's answer before sleeping
 * (the whole of the brief wait, see `_receive.ts`): a thread that slept
 * was often woken late, up to 1 ms after the answer came.
 */
const TAKE_SPIN_MS = 1;

/** How many microtask turns to give in-flight work before waiting through the event loop. */
const MICROTASK_TURNS = 64;
/**
 * How long an idle worker blocks before letting its event loop run anyway. A
 * turn of the event loop costs about 2 ms (Deno's shortest timer), during
 * which the mailbox is not watched, so turns are rare: a message that comes
 * by `postMessage` is announced in the mailbox ({@linkcode Mailbox.announce}),
 * and the worker takes turns at once until it has it.
 */
const IDLE_BLOCK_MS = 1_000;

/**
 * How often a polling thread offers its CPU to other threads
 * ({@linkcode threadYielder}). With two CPUs, a polling worker, the host's
 * thread and the client's all want one at times; Linux lets a running thread
 * finish its time slice before a woken one gets the CPU, so without yields a
 * woken thread could wait a millisecond or more behind a poller. Measured
 * with `bench/read_file_compare.ts` (mean ratio to the bare server, 8-10
 * alternated runs): no yields 1.39x (max 1.65x), a yield every poll 1.28-1.32x
 * (max 1.42x), every 50 µs 1.26x (max 1.35x).
 */
const RELAX_EVERY_MS = 0.05;

/**
 * A function that offers the calling thread's CPU to other runnable threads
 * (`sched_yield(2)`). The library handle holds only that symbol, so a worker
 * may make it before it gives up its FFI permission.
 *
 * @param libc The path of libc (the caller has FFI permission for it), or null.
 * @returns The yield, or `undefined` where libc cannot be loaded.
 */
export function threadYielder(libc: string | null): (() => void) | undefined {
  if (!libc) return undefined;
  try {
    const lib = Deno.dlopen(libc, { sched_yield: { parameters: [], result: "i32" } });
    return () => void lib.symbols.sched_yield();
  } catch {
    // No libc to load here (or no FFI): polls then simply do not yield, which costs only latency.
    return undefined;
  }
}

/**
 * Poll a mailbox's state until it is full or the time is up, offering the
 * CPU to other threads now and then.
 *
 * @returns Whether a message is waiting.
 */
function spinUntilFull(header: Int32Array, ms: number, relax: () => void): boolean {
  let now = performance.now();
  const until = now + ms;
  let relaxAt = now + RELAX_EVERY_MS;
  do {
    if (hasMessage(header)) return true;
    now = performance.now();
    if (now >= relaxAt) {
      relax();
      relaxAt = now + RELAX_EVERY_MS;
    }
  } while (now < until);
  return hasMessage(header);
}

/** A message waits: in the box, or announced as sent by `postMessage`. */
function hasMessage(header: Int32Array): boolean {
  return Atomics.load(header, STATE) === 1 || Atomics.load(header, POSTED) > 0;
}

/** How an idle listener polls for its next message ({@linkcode Mailbox.listen}). */
export interface IdlePoll {
  /** How long to poll now, in ms (0: block at once). */
  ms(): number;
  /**
   * Be told how a poll ended.
   *
   * @param caught Whether a message came within it.
   */
  ended(caught: boolean): void;
}

/** One direction of a host–worker channel. */
export class Mailbox {
  #header: Int32Array;
  #body: Uint8Array;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  #relax: () => void;

  /**
   * Open one side of a mailbox.
   *
   * @param buffer A buffer made by {@linkcode Mailbox.buffer}, shared by both sides.
   * @param relax How this side's thread offers its CPU while it polls
   *   ({@linkcode threadYielder}); by default it does not.
   */
  constructor(buffer: SharedArrayBuffer, relax?: () => void) {
    this.#relax = relax ?? (() => {});
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
   * @param poll How long an idle thread polls for the next message before
   *   it blocks (see {@linkcode IDLE_SPIN_MS}), asked once after each message,
   *   never while the thread stays idle; and told whether the poll caught one.
   * @returns Resolves when the mailbox is closed.
   */
  async listen(
    handle: (message: unknown) => void,
    idle: () => boolean = () => false,
    poll: IdlePoll = { ms: () => IDLE_SPIN_MS, ended: () => {} },
  ): Promise<void> {
    // Poll only right after a message: an idle thread that polled after every wake would burn a
    // share of a core forever.
    let polled = true;
    for (;;) {
      if (Atomics.load(this.#header, CLOSED) === 1) return;
      if (Atomics.load(this.#header, STATE) === 0) {
        // Work that needs no I/O finishes within a few microtask turns: let it, then look again.
        for (let turn = 0; turn < MICROTASK_TURNS && !idle(); turn++) await Promise.resolve();
        if (idle()) {
          if (Atomics.load(this.#header, POSTED) > 0) {
            // A message is on its way by postMessage: only a turn of the event loop brings it.
            await new Promise((resolve) => setTimeout(resolve, 0));
            continue;
          }
          if (!polled) {
            polled = true;
            const ms = poll.ms();
            if (ms > 0) {
              const caught = spinUntilFull(this.#header, ms, this.#relax);
              poll.ended(caught);
              if (caught) continue;
            }
          }
          if (Atomics.wait(this.#header, STATE, 0, IDLE_BLOCK_MS) === "timed-out") {
            // Let timers of this thread run now and then.
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          continue;
        }
        const wait = Atomics.waitAsync(this.#header, STATE, 0, 1_000);
        if (wait.async) await wait.value;
        continue;
      }
      const message = this.#unload();
      polled = false;
      handle(message);
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
    if (!spinUntilFull(this.#header, Math.min(timeoutMs, TAKE_SPIN_MS), this.#relax)) {
      Atomics.wait(this.#header, STATE, 0, Math.max(0, timeoutMs - TAKE_SPIN_MS));
    }
    if (Atomics.load(this.#header, STATE) === 0 || Atomics.load(this.#header, CLOSED) === 1) {
      return undefined;
    }
    return this.#unload();
  }

  /** Take the message out of the box (it is full), and free the box for the next. */
  #unload(): unknown {
    const length = Atomics.load(this.#header, LENGTH);
    const text = this.#decoder.decode(this.#body.slice(0, length));
    Atomics.store(this.#header, STATE, 0);
    Atomics.notify(this.#header, STATE);
    return JSON.parse(text);
  }

  /**
   * Say that a message for the listener went by `postMessage` (the box was
   * full, or it is too large): a listener blocked on the box wakes and lets
   * its event loop run until {@linkcode Mailbox.received} is called.
   */
  announce(): void {
    Atomics.add(this.#header, POSTED, 1);
    Atomics.notify(this.#header, STATE);
  }

  /**
   * Whether a message waits for the listener, in the box or announced. Cheap
   * (two loads of shared memory): long work on the listener's thread asks it
   * often and yields at once when one waits, so a cancellation is seen
   * promptly, not at the next scheduled yield.
   */
  waiting(): boolean {
    return hasMessage(this.#header);
  }

  /** The listener's side of {@linkcode Mailbox.announce}: an announced message came. */
  received(): void {
    if (Atomics.load(this.#header, POSTED) > 0) Atomics.sub(this.#header, POSTED, 1);
  }

  /** Close the mailbox: the listener returns and pending sends are dropped. */
  close(): void {
    Atomics.store(this.#header, CLOSED, 1);
    Atomics.notify(this.#header, STATE);
  }
}
