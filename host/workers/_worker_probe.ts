/**
 * The doctor's probes, run in a tool worker: a raw operation with no
 * resolver in the way, so only the worker's Deno permissions can stop it.
 *
 * @module
 */

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
 * @returns Resolves once the answer is sent.
 */
export async function probe(
  message: ProbeMessage,
  post: (message: FromWorker) => void,
): Promise<void> {
  try {
    // Awaited only when the operation is asynchronous: a synchronous one is answered at once,
    // before this thread goes back to waiting on its mailbox.
    const pending = start(message);
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
function start(message: ProbeMessage): Promise<unknown> | undefined {
  const { probe, target } = message;
  switch (probe) {
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
