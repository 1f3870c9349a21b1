/**
 * The doctor's probes, run in a tool worker: a raw operation with no
 * resolver in the way, so only the worker's Deno permissions (or, for
 * `read_native`, the kernel's Landlock rules alone) can stop it.
 *
 * @module
 */

import { constants } from "node:fs";
import { type NativeFs, O_CLOEXEC } from "../../security/native_fs.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

/** What a write probe writes. */
const PROBE_TEXT = "toolhost doctor probe\n";

/** A probe message. */
export type ProbeMessage = Extract<ToWorker, { type: "probe" }>;

/**
 * Try a raw operation with no resolver in the way: only Deno's permissions can stop it.
 *
 * @param message The probe.
 * @param post Sends the answer to the host.
 * @param native The worker's libc calls for reads, if it has them.
 * @returns Resolves once the answer is sent.
 */
export async function probe(
  message: ProbeMessage,
  post: (message: FromWorker) => void,
  native?: NativeFs,
): Promise<void> {
  try {
    // Awaited only when the operation is asynchronous: a synchronous one is answered at once,
    // before this thread goes back to waiting on its mailbox.
    const pending = start(message, native);
    if (pending) await pending;
    post({ type: "probe_result", id: message.id, error: null });
  } catch (error) {
    post({
      type: "probe_result",
      id: message.id,
      error: error instanceof Error ? error.name : String(error),
    });
  }
}

/**
 * Start the operation; it throws (or rejects with) what Deno throws.
 *
 * @returns The operation's promise, or `undefined` when it was synchronous and is done.
 */
function start(message: ProbeMessage, native: NativeFs | undefined): Promise<unknown> | undefined {
  const { probe, target } = message;
  switch (probe) {
    case "read_native":
      readNative(target, native);
      return undefined;
    case "read":
      return Deno.readFile(target);
    case "write":
      return Deno.writeTextFile(target, PROBE_TEXT);
    case "run":
      return new Deno.Command(target, { args: ["--version"] }).output();
    case "net":
      return Deno.connect({ hostname: target, port: 9 });
    case "read_sync":
      Deno.readFileSync(target);
      return undefined;
    case "write_sync":
      Deno.writeTextFileSync(target, PROBE_TEXT);
      return undefined;
    default:
      Deno.env.get(target);
      return undefined;
  }
}

/** An error with the name the probe answers. */
function named(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * Open and read a file through the worker's own libc calls, symlinks
 * followed: no Deno permission check in the way, only the kernel's.
 *
 * @throws {Error} `Unavailable` without such calls, `Refused` when the open or read failed.
 */
function readNative(target: string, native: NativeFs | undefined): void {
  if (!native) throw named("Unavailable", "this worker reads through Deno's calls");
  const fd = native.open(target, constants.O_RDONLY | constants.O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw named("Refused", `cannot open ${target}`);
  try {
    if (native.read(fd, new Uint8Array(1)) < 0) throw named("Refused", `cannot read ${target}`);
  } finally {
    native.close(fd);
  }
}
