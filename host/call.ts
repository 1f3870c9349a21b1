/**
 * One call as the host answers it, whatever serves it: the dispatcher runs
 * it, the session's stale-read notices go with the reply, and the reply is
 * bounded. For a call no worker runs (host-side tools, upstream servers), a
 * worker checks the session's files meanwhile.
 *
 * @module
 */

import { boundReply } from "../tools/reply_bound.ts";
import type { ToolResult } from "../tools/tool.ts";
import type { CallContext, Dispatcher } from "./providers/mod.ts";
import type { ReadTracker } from "./state/mod.ts";
import type { WorkerPool } from "./workers/mod.ts";
import type { FileChange } from "./workers/mod.ts";

/**
 * How long a host-side or upstream call's reply waits for a worker's check
 * of the session's files (a busy worker answers it late).
 */
const CHECK_WAIT_MS = 100;

/** What {@linkcode hostCall} runs calls with. */
export interface CallParts {
  /** Routes the call. */
  dispatcher: Dispatcher;
  /** The tool workers (they check the session's files). */
  pool: WorkerPool;
  /** The sessions' reads. */
  reads: ReadTracker;
  /** The reply bound, in bytes of JSON. */
  maxReplyBytes: number;
}

/**
 * Run a call and shape its reply.
 *
 * @param parts The dispatcher, workers, reads and bound.
 * @param name The tool.
 * @param args Its arguments.
 * @param ctx Session, client, cancellation, progress.
 * @returns The reply the client gets.
 */
export async function hostCall(
  parts: CallParts,
  name: string,
  args: unknown,
  ctx: Partial<CallContext> = {},
): Promise<ToolResult> {
  const { dispatcher, reads } = parts;
  const full: CallContext = { session: "local", client: "local", ...ctx };
  const pool = full.scope?.pool ?? parts.pool;
  // A local call's worker checks the files this session read before the tool runs; for any
  // other call (host tools, upstream servers) a worker checks them meanwhile.
  const local = pool.runs(name);
  const checked = local ? undefined : pool.check(reads.watch(full.session));
  const result = await dispatcher.call(name, args, full);
  if (checked) await awaitCheck(checked, (changes) => reads.changed(full.session, changes));
  // Whatever produced it (a worker, a host-side tool, an upstream server), with the notices.
  return boundReply(reads.decorate(full.session, result), parts.maxReplyBytes, { dropMeta: true });
}

/**
 * The host's calls over some parts: running one ({@linkcode hostCall}), and
 * telling whether the tool workers run a tool.
 *
 * @param parts The dispatcher, workers, reads and bound.
 * @returns The host's `call` and `runsInWorker`.
 */
export function hostCalls(parts: CallParts): {
  call(name: string, args: unknown, ctx?: Partial<CallContext>): Promise<ToolResult>;
  runsInWorker(name: string): boolean;
} {
  return {
    call: (name, args, ctx) => hostCall(parts, name, args, ctx),
    runsInWorker: (name) => parts.pool.runs(name),
  };
}

/**
 * Take a worker's check into account now if it answers soon, else when it
 * does (its notices then go with the next reply): a host-side call never
 * waits on a worker's long call.
 */
async function awaitCheck(
  checked: Promise<FileChange[]>,
  apply: (changes: FileChange[]) => void,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_WAIT_MS);
  });
  const changes = await Promise.race([checked, late]);
  clearTimeout(timer);
  if (changes) apply(changes);
  else void checked.then(apply);
}
