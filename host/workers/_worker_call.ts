/**
 * How a tool worker runs one call: it checks the session's watched files
 * first, gives the tool a context whose file hooks record what the call
 * touched, read and wrote, and answers with the result and what it saw.
 *
 * @module
 */

import type { FileVersion } from "../../security/safe_fs.ts";
import { UnknownToolError } from "../../tools/registry.ts";
import type { ToolContext, ToolResult } from "../../tools/tool.ts";
import { PROCESS_REPORT_SERVICE, type ProcessReport } from "../../tools/sessions.ts";
import { OVERLAY_MARKS_SERVICE } from "../../tools/sandbox.ts";
import { prepareSymbolIndexes } from "../../tools/symbols/mod.ts";
import type {
  FileChange,
  FromWorker,
  SeenFile,
  SeenFiles,
  ToWorker,
  WatchedFile,
} from "./protocol.ts";
import { IDLE_SPIN_MS, type IdlePoll } from "./mailbox.ts";
import { PayingWaits } from "./_paying_waits.ts";
import { checkWatched, MAX_TRACKED, textOf } from "./watch.ts";
import type { WorkerState } from "./_worker_setup.ts";

/**
 * After a call this long, the worker does not poll for the next one: waking
 * from sleep costs well under 2% of such a call, and polling would take a
 * core from the host and the other worker (pages of a directory outline).
 * It collects its garbage instead ({@linkcode collectGarbage}).
 */
const LONG_CALL_MS = 50;

/**
 * V8's full collection, when the process runs with `--expose-gc` (the served
 * process does: `V8_FLAGS` in `launcher.ts`). A long call (a page of a
 * directory's outlines) leaves garbage that V8 would rather let pile up than
 * collect soon. Collected after each long call, once
 * the answer went out, the host's peak RSS over `bench/python_bench.ts` was
 * 239-258 MB instead of 292-312 MB; each collection takes the worker 12-20
 * ms, about 7% of a page of outlines (two in flight: 6.5-6.9 MB/s instead of
 * 7.5-7.7 MB/s). Collecting only after the heap grew 16 MB kept 272-280 MB.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** A call message. */
export type CallMessage = Extract<ToWorker, { type: "call" }>;

/**
 * How long an idle worker polls for the host's next message before it
 * sleeps: not at all after a long call, nor while its polls go unanswered
 * (the client pauses between calls, or the machine's cores are all busy:
 * {@linkcode PayingWaits}). Measured with the suite's end-to-end files, a
 * worker that always polled took about a tenth more CPU than one that never
 * did; `bench/read_file_compare.ts` keeps its ratio (bench/README.md).
 */
export class IdlePolls implements IdlePoll {
  #state: () => WorkerState | undefined;
  #waits = new PayingWaits(MOST_POLLS_SKIPPED);

  /**
   * @param state The worker's state, once init made it.
   */
  constructor(state: () => WorkerState | undefined) {
    this.#state = state;
  }

  /** How long to poll now. */
  ms(): number {
    if ((this.#state()?.lastCallMs ?? 0) > LONG_CALL_MS) return 0;
    return this.#waits.worthIt() ? IDLE_SPIN_MS : 0;
  }

  /** How the poll ended. */
  ended(caught: boolean): void {
    this.#waits.ended(caught);
  }
}

/** The most idle turns in a row a worker goes without polling once its polls stopped paying. */
const MOST_POLLS_SKIPPED = 16;

/**
 * Run one call and answer it.
 *
 * @param state The worker's state.
 * @param message The call.
 * @returns Resolves once the call is answered.
 * @throws {Error} What the registry threw that is not an unknown tool (the worker then crashes, and the host replaces it).
 */
export async function runCall(state: WorkerState, message: CallMessage): Promise<void> {
  const started = performance.now();
  const controller = new AbortController();
  state.inflight.set(message.id, controller);
  // Changes by other means, found before the tool touches anything.
  const watch = message.watch ?? [];
  const changes = watch.length > 0 ? checkWatched(state.fs, watch) : [];
  const record = new CallRecord();
  const ctx = callContext(state, message, { record, signal: controller.signal });
  try {
    const result = await state.registry.call(message.name, message.args, ctx);
    state.link.post(record.answer(message.id, result, { watch, changes }));
  } catch (error) {
    if (error instanceof UnknownToolError) {
      state.link.post({ type: "unknown_tool", id: message.id });
    } else throw error;
  } finally {
    state.inflight.delete(message.id);
    state.lastCallMs = performance.now() - started;
    if (state.lastCallMs > LONG_CALL_MS && state.inflight.size === 0) collectGarbage?.();
  }
}

/** What one call touched, read and wrote, as its file hooks saw it. */
class CallRecord {
  /** Display paths the tool touched. */
  readonly paths = new Set<string>();
  /** Whole files read and written. */
  readonly seen: SeenFiles = { reads: [], writes: [] };
  /** The content of the call's most recent files (for the host's diffs), at most MAX_TRACKED. */
  #contents = new Map<string, Uint8Array>();

  read(path: string, file: FileVersion): void {
    this.seen.reads.push(seenFile(path, file));
    this.#keep(path, file.bytes);
  }

  wrote(path: string, file: FileVersion): void {
    this.seen.writes.push(seenFile(path, file));
    this.#keep(path, file.bytes);
  }

  moved(from: string, to: string): void {
    (this.seen.moves ??= []).push({ from, to });
  }

  /** The result message, with what the call saw and the changes found before it ran. */
  answer(
    id: number,
    result: ToolResult,
    before: { watch: readonly WatchedFile[]; changes: FileChange[] },
  ): FromWorker {
    const done: FromWorker = { type: "result", id, result, paths: [...this.paths] };
    const seen = this.seen;
    if (seen.reads.length > 0 || seen.writes.length > 0 || seen.moves) {
      if (!result.isError) {
        attachTexts(seen, this.#contents, knownTexts(before.watch, before.changes));
      }
      done.seen = seen;
    }
    if (before.changes.length > 0) done.changes = before.changes;
    return done;
  }

  #keep(path: string, bytes: Uint8Array): void {
    this.#contents.delete(path);
    this.#contents.set(path, bytes);
    if (this.#contents.size > MAX_TRACKED) {
      this.#contents.delete(this.#contents.keys().next().value!);
    }
  }
}

/**
 * Prepare the roots' symbol index in the background (`tools/symbols/_prepare.ts`),
 * with a context of no call: no file hooks, no progress, stopped by nothing.
 *
 * @param state The worker's state.
 * @returns Resolves when done; a failure is said as a warning, never thrown.
 */
export async function prepareInBackground(state: WorkerState): Promise<void> {
  const ctx: ToolContext = {
    policy: state.resolver.policy,
    resolver: state.resolver,
    fs: state.fs,
    signal: new AbortController().signal,
    messageWaiting: () => state.link.waiting(),
    callsInFlight: () => state.inflight.size > 0,
    logger: state.link.logger,
    binaries: state.binaries,
    progress() {},
    shared: (key, make) => sharedValue(state, key, make),
  };
  try {
    // What reading the index back left behind is collected at once (as after a long call),
    // unless a call waits: it goes first (and collects after itself).
    const idle = () => state.inflight.size === 0 && !state.link.waiting();
    if (await prepareSymbolIndexes(ctx) && idle()) collectGarbage?.();
  } catch (error) {
    state.link.logger.warn("The symbol index could not be prepared at start", error);
  }
}

/** A value kept for the life of the worker. */
function sharedValue<T>(state: WorkerState, key: string, make: () => T): T {
  if (!state.shared.has(key)) state.shared.set(key, make());
  return state.shared.get(key) as T;
}

/** The context a call's tool runs with. */
function callContext(
  state: WorkerState,
  message: CallMessage,
  call: { record: CallRecord; signal: AbortSignal },
): ToolContext {
  const { record } = call;
  const link = state.link;
  const force = (message.args as { force?: unknown } | undefined)?.force === true;
  const checksStale = !force && state.registry.acceptsForce(message.name);
  // The processes the tool runs itself go to the host, tagged with this call.
  const report: ProcessReport = {
    ran: (process) => link.post({ type: "subprocess", id: message.id, process }),
  };
  return {
    policy: state.resolver.policy,
    resolver: state.resolver,
    fs: state.fs.withHooks({
      touch: (path) => record.paths.add(path),
      read: (resolved, file) => record.read(resolved.display, file),
      wrote: (resolved, file) => record.wrote(resolved.display, file),
      moved: (source, destination) => record.moved(source.display, destination.display),
      expected: (path) => (checksStale ? message.expect?.[path] : undefined),
      writes: state.registry.writes(message.name),
    }),
    signal: call.signal,
    messageWaiting: () => link.waiting(),
    logger: link.logger,
    binaries: state.binaries,
    progress(progress, total, text) {
      const note: FromWorker = { type: "progress", id: message.id, progress };
      if (total !== undefined) note.total = total;
      if (text !== undefined) note.message = text;
      link.post(note);
    },
    shared<T>(key: string, make: () => T): T {
      if (key === PROCESS_REPORT_SERVICE) return report as T;
      if (key === OVERLAY_MARKS_SERVICE) return state.marks as T;
      return sharedValue(state, key, make);
    },
  };
}

function seenFile(path: string, file: FileVersion): SeenFile {
  return {
    path,
    fingerprint: file.fingerprint,
    mtime: file.info.mtime?.getTime() ?? 0,
    size: file.info.size,
  };
}

/**
 * Give the host the text of the versions it will keep and does not have:
 * the call's last {@linkcode MAX_TRACKED} files, small enough to diff.
 */
function attachTexts(
  seen: SeenFiles,
  bytes: ReadonlyMap<string, Uint8Array>,
  known: ReadonlyMap<string, string>,
): void {
  const last = new Map<string, SeenFile>();
  for (const file of [...seen.reads, ...seen.writes]) last.set(file.path, file);
  for (const [path, file] of last) {
    const content = bytes.get(path);
    if (content === undefined || known.get(path) === file.fingerprint) continue;
    const text = textOf(content, path);
    if (text !== undefined) file.text = text;
  }
}

/** The versions whose text the host has: what it showed, and what this call's check sent. */
function knownTexts(
  watch: readonly WatchedFile[],
  changes: readonly FileChange[],
): Map<string, string> {
  const known = new Map<string, string>();
  for (const file of watch) if (file.hasText) known.set(file.path, file.shown);
  for (const change of changes) {
    if (change.gone === undefined && change.text !== undefined) {
      known.set(change.path, change.fingerprint);
    }
  }
  return known;
}
