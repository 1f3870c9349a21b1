/**
 * The local tools as a provider: the worker pool runs them, and each call
 * takes the session's stale-read bookkeeping along (the files it watches,
 * what an editor must find unchanged) and brings back what it read and what
 * changed behind it.
 *
 * @module
 */

import type { ReadTracker } from "../state/mod.ts";
import type { WorkerPool } from "../workers/mod.ts";
import type { ToolProvider } from "./dispatcher.ts";

/**
 * The local tools, run by the worker pool.
 *
 * @param pool The tool workers.
 * @param reads The sessions' reads.
 * @returns The provider.
 */
export function localTools(pool: WorkerPool, reads: ReadTracker): ToolProvider {
  return {
    name: "local",
    list: () => pool.tools,
    call: async (name, args, ctx) => {
      const call: Parameters<WorkerPool["call"]>[2] = { watch: reads.watch(ctx.session) };
      if (ctx.signal) call.signal = ctx.signal;
      if (ctx.onProgress) call.onProgress = ctx.onProgress;
      const pathArgs = pool.familyOf(name)?.pathArgs ?? [];
      const expect = reads.expectations(ctx.session, args, pathArgs);
      if (expect) call.expect = expect;
      const done = await pool.call(name, args, call);
      if (done.changes) reads.changed(ctx.session, done.changes);
      // A failed call's reads are not the agent's: it never saw that content.
      if (done.seen && !done.result.isError) reads.record(ctx.session, done.seen);
      return done;
    },
  };
}
