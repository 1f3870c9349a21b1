/**
 * The network worker's process: `deno run` with `--allow-net` for exactly
 * the egress policy's list and no other permission, spoken to in JSON lines
 * over its standard input and output.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ToolError } from "../../security/errors.ts";
import type { NetSettings } from "../config/mod.ts";
import { type FromNet, jsonLines, type ToNet, type WorkerNetSettings } from "./protocol.ts";

/** The worker's entry. */
const ENTRY = new URL("./network_worker.ts", import.meta.url);
/** The config its imports resolve with (toolhost's own). */
const DENO_JSON = new URL("../../deno.json", import.meta.url);
/** The longest the worker may take to start (a cold Deno cache compiles its modules first). */
const START_TIMEOUT_MS = 60_000;
/** The end of its standard error kept, to say why it stopped. */
const STDERR_TAIL = 2048;
/** Its heap's limit: a hostile page cannot take the machine's memory. */
const HEAP_MB = 1024;

/** A running worker. */
export interface WorkerProcess {
  /** Send it a message. */
  send(message: ToNet): void;
  /** Stop it. */
  stop(): void;
}

/** What the host is told by a running worker. */
export interface WorkerHandlers {
  /** An answer or a progress report. */
  answer(message: Exclude<FromNet, { type: "ready" }>): void;
  /** It exited after it was ready. */
  exited(why: string): void;
}

/**
 * Why the network worker cannot run here, or null: a `deno compile` binary
 * has no Deno to start it with.
 *
 * @returns The reason, or null.
 */
export function whyNoWorker(): string | null {
  return import.meta.url.includes("/deno-compile-")
    ? "a compiled binary cannot start the network worker (it needs Deno to run it with --allow-net)"
    : null;
}

/**
 * The worker's command line: Deno, `--allow-net` for the policy's list, no
 * other permission, its entry.
 *
 * @param settings The `net` settings.
 * @returns The program and arguments.
 */
export function workerCommand(settings: NetSettings): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-remote",
      `--config=${fileURLToPath(DENO_JSON)}`,
      // The packages as installed (bin/toolhost installed them): "auto" checks them all again.
      "--node-modules-dir=manual",
      `--allow-net=${settings.permissions.join(",")}`,
      ...(settings.denials.length > 0 ? [`--deny-net=${settings.denials.join(",")}`] : []),
      `--v8-flags=--max-old-space-size=${HEAP_MB}`,
      fileURLToPath(ENTRY),
    ],
  };
}

/**
 * Start the worker, send it its settings, and wait until it says it is ready.
 *
 * @param settings The `net` settings.
 * @param handlers Where its answers and its exit go.
 * @returns The running worker.
 * @throws {ToolError} `unsupported` when it cannot start.
 */
export async function startWorker(
  settings: NetSettings,
  handlers: WorkerHandlers,
): Promise<WorkerProcess> {
  const child = spawn(workerCommand(settings));
  const stderr = tailOf(child.stderr);
  const writer = child.stdin.getWriter();
  const send = (message: ToNet) =>
    void writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)).catch(() => {});
  const stop = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // It has already exited.
    }
  };
  const ready = Promise.withResolvers<void>();
  let started = false;
  let broken = "";
  void readLines(child.stdout, (message: FromNet) => {
    if (message.type !== "ready") return handlers.answer(message);
    started = true;
    ready.resolve();
  }, (error) => {
    // A line that is not a message: nothing it says can be trusted to match a call any more.
    broken = `; it wrote something that is not a message (${(error as Error).message})`;
    stop();
  });
  void child.status.then(async (status) => {
    const why = `it exited (${status.signal ?? `status ${status.code}`})${broken}${await stderr()}`;
    if (started) handlers.exited(why);
    else ready.reject(new Error(why));
  });
  send({ type: "init", settings: workerSettings(settings) });
  const timer = setTimeout(
    () => ready.reject(new Error("it did not start in time")),
    START_TIMEOUT_MS,
  );
  try {
    await ready.promise;
  } catch (error) {
    stop();
    throw new ToolError(
      "unsupported",
      `The network worker cannot start: ${(error as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
  return { send, stop };
}

/** Start the process, or say why it cannot start. */
function spawn({ command, args }: { command: string; args: string[] }): Deno.ChildProcess {
  try {
    return new Deno.Command(command, {
      args,
      cwd: "/",
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new ToolError(
      "unsupported",
      `The network worker cannot start: ${
        (error as Error).message
      } (run "toolhost mcp-config" again if this entry was printed by an older toolhost)`,
    );
  }
}

/** The settings the worker is sent (its policy parsed again there). */
function workerSettings(settings: NetSettings): WorkerNetSettings {
  const { policy, permissions: _permissions, denials: _denials, ...rest } = settings;
  return {
    ...rest,
    allow: policy.allow?.map((entry) => entry.text) ?? null,
    deny: policy.deny.map((entry) => entry.text),
    unlocks: policy.allow?.some((entry) => entry.unlocks) ?? false,
  };
}

/** Each message on the worker's standard output, to its end; `bad` when one does not parse. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  each: (message: FromNet) => void,
  bad: (error: unknown) => void,
): Promise<void> {
  try {
    for await (const message of jsonLines<FromNet>(stream)) each(message);
  } catch (error) {
    if (error instanceof SyntaxError) bad(error);
    // Otherwise the process ended mid-line: its exit says why.
  }
}

/** Keeps the end of a stream; resolves to it (as `: …`, or "") once the stream ends. */
function tailOf(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const done = (async () => {
    let tail = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL);
      }
    } catch {
      // Ended: what came is kept.
    }
    // deno-lint-ignore no-control-regex -- Deno colours its error lines
    const plain = tail.replace(/\x1b\[[0-9;]*m/g, "").trim();
    return plain ? `: ${plain}` : "";
  })();
  return () => done;
}
