/**
 * The local tools as a provider: the worker pool runs them, and each call
 * takes the session's stale-read bookkeeping along (the files it watches,
 * what an editor must find unchanged) and brings back what it read and what
 * changed behind it. The files a call touched tell which languages the
 * roots hold ({@linkcode ShownFamilies}).
 *
 * @module
 */

import { withIcons } from "../../tools/icons.ts";
import type { ReadTracker } from "../state/mod.ts";
import type { PoolResult, WorkerPool } from "../workers/mod.ts";
import type { HostLogger } from "../logger.ts";
import type { ToolProvider } from "./dispatcher.ts";
import type { ShownFamilies } from "./shown_families.ts";

/** The internal tool that says which extensions the roots hold. */
const DETECT_TOOL = "detect_languages";

/**
 * The local tools, run by the worker pool.
 *
 * @param pool The tool workers.
 * @param reads The sessions' reads.
 * @param shown Which families are listed (and which calls may run).
 * @returns The provider: its tools in the workers' order (the families' in `tools/families.ts`), each with its family's icon.
 */
export function localTools(
  pool: WorkerPool,
  reads: ReadTracker,
  shown: ShownFamilies,
): ToolProvider {
  const described = withIcons(pool.tools, (name) => pool.familyOf(name)?.icon);
  return {
    name: "local",
    // Confined to the roots: a worker reads neither the logs nor the statistics.
    readsNoObservations: true,
    list: () => described.filter((tool) => shown.listed(pool.families[tool.name])),
    serves: (name) => pool.runs(name) && shown.callable(pool.families[name]),
    call: async (name, args, ctx) => {
      const call: Parameters<WorkerPool["call"]>[2] = { watch: reads.watch(ctx.session) };
      if (ctx.signal) call.signal = ctx.signal;
      if (ctx.onProgress) call.onProgress = ctx.onProgress;
      const pathArgs = pool.familyOf(name)?.pathArgs ?? [];
      const expect = reads.expectations(ctx.session, args, pathArgs);
      if (expect) call.expect = expect;
      // A client limited to some roots has workers of its own, confined to them.
      const done = await (ctx.scope?.pool ?? pool).call(name, args, call);
      if (done.changes) reads.changed(ctx.session, done.changes);
      // A failed call's reads are not the agent's: it never saw that content.
      if (done.seen && !done.result.isError) reads.record(ctx.session, done.seen);
      if (!done.result.isError) shown.notice(touched(done));
      return done;
    },
  };
}

/** The files a call touched, read, wrote or found changed. */
function touched(done: PoolResult): string[] {
  return [
    ...done.paths,
    ...(done.seen?.writes ?? []).map((file) => file.path),
    ...(done.changes ?? []).filter((change) => !change.gone).map((change) => change.path),
  ];
}

/**
 * Ask a tool worker which languages the roots hold, once at start (a
 * bounded walk there: the host lists no project directory itself). When it
 * cannot say (it failed, or the roots hold more than it may look at), every
 * family is listed.
 *
 * @param pool The tool workers.
 * @param shown Told what was found.
 * @param logger Where a failure is said.
 */
export async function detectLanguages(
  pool: WorkerPool,
  shown: ShownFamilies,
  logger: HostLogger,
): Promise<void> {
  const pending = shown.pending();
  if (pending.length === 0) return;
  const extensions = pending.filter((key) => key.startsWith("."));
  const markers = pending.filter((key) => key.startsWith("/")).map((key) => key.slice(1));
  let level: "info" | "warn" = "warn";
  let why: string;
  try {
    const { result } = await pool.call(DETECT_TOOL, { extensions, markers });
    const { found, complete } = result.structuredContent ?? {};
    if (!result.isError && Array.isArray(found)) {
      shown.found(found.map(String));
      if (complete === true) return;
      [level, why] = ["info", "the roots hold more files than the look at start may see"];
    } else why = result.content.map((block) => (block.type === "text" ? block.text : "")).join(" ");
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  logger.log(level, `Cannot tell which languages the roots hold; listing every tool (${why})`);
  shown.found(pending);
}
