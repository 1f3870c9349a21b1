/**
 * Run a program as a child with the terminal's stdio, passing on the
 * signals that stop it, and report its exit as a shell would.
 *
 * @module
 */

import { constants } from "node:os";
import type { CommandLine } from "./scoped_command.ts";

/** The signals passed on to the child: the ones that ask a server to stop. */
const FORWARDED: readonly Deno.Signal[] = Object.freeze(["SIGINT", "SIGTERM", "SIGHUP"]);

/**
 * Run a command line with stdio inherited, passing signals through, and
 * return its exit code.
 *
 * @param line The command line.
 * @returns The child's exit code (128 plus the signal's number when a signal ended it).
 */
export async function runInherited(
  line: CommandLine & { env?: Record<string, string> },
): Promise<number> {
  const child = new Deno.Command(line.command, {
    args: line.args,
    ...(line.env ? { env: line.env } : {}),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const stopForwarding = forwardSignals(child);
  try {
    const status = await child.status;
    return status.signal ? 128 + signalNumber(status.signal) : status.code;
  } finally {
    stopForwarding();
  }
}

/**
 * Pass {@linkcode FORWARDED} signals that reach this process on to a child.
 *
 * @returns A function that stops passing them on.
 */
function forwardSignals(child: Deno.ChildProcess): () => void {
  const handlers = FORWARDED.map((signal): [Deno.Signal, () => void] => [signal, () => {
    try {
      child.kill(signal);
    } catch {
      // Safe to drop: the child is already gone, so there is nothing to signal.
    }
  }]);
  for (const [signal, handler] of handlers) Deno.addSignalListener(signal, handler);
  return () => {
    for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
  };
}

/** A signal's number on this platform (1, SIGHUP's, for a name it does not know). */
function signalNumber(signal: Deno.Signal): number {
  return (constants.signals as Readonly<Record<string, number | undefined>>)[signal] ?? 1;
}
