/**
 * Standard output for the stdio transport, which writes one message at a
 * time. A reply that fits in one piece (at most `PIPE_BUF` bytes) is written
 * synchronously when `poll(2)` says the descriptor takes it now, so that
 * write cannot block; it saves handing each reply to one of Deno's blocking
 * threads, one more thread to wake per reply (3-6% of a small `read_file`'s
 * round trip, `bench/http_ab.ts --stdio`). Anything else — a larger reply,
 * a client that is not keeping up, no libc to ask — goes through Deno's
 * asynchronous write, so a client that stops reading never blocks the host's
 * event loop (timers, cancellations, the Hook API, signals).
 *
 * @module
 */

/** What the transport writes through. */
export interface StdoutWriter {
  /**
   * Write some of the bytes (the caller writes one message at a time, in order).
   *
   * @param bytes The bytes.
   * @returns How many were written.
   */
  write(bytes: Uint8Array): Promise<number>;
}

/** Linux's `PIPE_BUF`: a pipe takes a write this small whole or not at all. */
const PIPE_BUF = 4096;
const POLLOUT = 4;

/**
 * The writer for this process's standard output.
 *
 * @param libc The path of libc (the process has FFI permission for it), or null.
 * @returns The writer; without libc every write is asynchronous.
 */
export function stdoutWriter(libc: string | null): StdoutWriter {
  const writable = libc ? pollWritable(libc) : undefined;
  return {
    write(bytes) {
      if (writable && bytes.length <= PIPE_BUF && writable()) {
        try {
          return Promise.resolve(Deno.stdout.writeSync(bytes));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return Deno.stdout.write(bytes);
    },
  };
}

/** Whether fd 1 takes a write now (`poll` with no wait), or `undefined` when libc cannot be loaded. */
function pollWritable(libc: string): (() => boolean) | undefined {
  try {
    const lib = Deno.dlopen(libc, {
      poll: { parameters: ["buffer", "u64", "i32"], result: "i32" },
    });
    const bytes = new Uint8Array(8); // struct pollfd { int fd; short events; short revents; }
    const view = new DataView(bytes.buffer);
    return () => {
      view.setInt32(0, 1, true);
      view.setInt16(4, POLLOUT, true);
      view.setInt16(6, 0, true);
      return lib.symbols.poll(bytes, 1n, 0) === 1 && (view.getInt16(6, true) & ~POLLOUT) === 0;
    };
  } catch {
    // No FFI for libc here: every write goes through Deno's asynchronous call.
    return undefined;
  }
}
