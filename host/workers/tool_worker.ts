/**
 * The tool worker: runs local tools under the Deno permissions the host gave
 * it (the roots and the state directory, nothing else). One message in, one
 * result out; progress and logs flow back as messages.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { Anchor } from "../../security/anchored.ts";
import { confineThread, type LandlockStatus } from "../../security/landlock.ts";
import { ToolError } from "../../security/errors.ts";
import { Resolver } from "../../security/resolver.ts";
import { type FileVersion, SafeFs } from "../../security/safe_fs.ts";
import { Registry, UnknownToolError } from "../../tools/registry.ts";
import { TOOLS } from "../../tools/mod.ts";
import type { Logger, Tool, ToolContext } from "../../tools/tool.ts";
import type {
  FileChange,
  FromWorker,
  RipgrepStatus,
  SeenFile,
  SeenFiles,
  ToWorker,
  WatchedFile,
} from "./protocol.ts";
import { IDLE_SPIN_MS, Mailbox, threadYielder } from "./mailbox.ts";
import { checkWatched, MAX_TRACKED, textOf } from "./watch.ts";

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

/** How long the last call took, in ms. */
let lastCallMs = 0;

interface WorkerState {
  registry: Registry;
  resolver: Resolver;
  fs: SafeFs;
  shared: Map<string, unknown>;
  inflight: Map<number, AbortController>;
  binaries: { ripgrep?: string };
}

/** The mailboxes to and from the host, once init gave them (see `mailbox.ts`). */
const channel: { outbox: Mailbox | null; inbox: Mailbox | null } = { outbox: null, inbox: null };

function post(message: FromWorker): void {
  if (!channel.outbox?.send(message)) self.postMessage(message);
}

const logger: Logger = {
  warn: (message, detail) =>
    post({ type: "log", level: "warn", message, detail: describe(detail) }),
  error: (message, detail) =>
    post({ type: "log", level: "error", message, detail: describe(detail) }),
};

function describe(detail: unknown): string | undefined {
  if (detail === undefined) return undefined;
  if (detail instanceof Error) return detail.stack ?? `${detail.name}: ${detail.message}`;
  return typeof detail === "string" ? detail : JSON.stringify(detail);
}

async function init(message: Extract<ToWorker, { type: "init" }>): Promise<WorkerState> {
  const resolver = new Resolver(message.policy);
  const tools = message.toolsModule
    ? ((await import(message.toolsModule)) as { TOOLS: Tool[] }).TOOLS
    : TOOLS;
  const registry = new Registry(tools, message.registry);
  const landlock = confine(message);
  const anchor = new Anchor(message.policy.roots, landlock.active);
  // Run under the same confinement as every search will: a binary that cannot run is said, not skipped.
  const ripgrep: RipgrepStatus = message.ripgrep
    ? await probeRipgrep(message.ripgrep)
    : { active: false, path: null, reason: message.noRipgrep ?? "not configured" };
  self.postMessage(
    { type: "ready", tools: registry.list(), landlock, ripgrep } satisfies FromWorker,
  );
  return {
    registry,
    resolver,
    fs: new SafeFs(resolver, anchor),
    shared: new Map(),
    inflight: new Map(),
    binaries: ripgrep.active ? { ripgrep: ripgrep.path } : {},
  };
}

/** How long `rg --version` may take before ripgrep is taken for broken. */
const RIPGREP_PROBE_MS = 10_000;

/** Run `rg --version` from this (confined) thread: ripgrep is used only if that works. */
async function probeRipgrep(path: string): Promise<RipgrepStatus> {
  try {
    // As the search tools run it: stdin a closed pipe (the confined thread may not open /dev/null).
    const child = new Deno.Command(path, {
      args: ["--version"],
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(RIPGREP_PROBE_MS),
    }).spawn();
    await child.stdin.close();
    const output = await child.output();
    const first = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim().split("\n")[0];
    if (output.success) return { active: true, path, version: first(output.stdout) ?? "" };
    return {
      active: false,
      path,
      reason: `"${path} --version" failed (exit code ${output.code}${
        output.stderr.length > 0 ? `: ${first(output.stderr)}` : ""
      })`,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { active: false, path, reason: `cannot run "${path}": ${message}` };
  }
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

/** Confine this thread with Landlock, then give up FFI for good. */
function confine(message: Extract<ToWorker, { type: "init" }>): LandlockStatus {
  if (!message.libc) {
    return { active: false, abi: 0, reason: message.noLibc ?? "libc was not found" };
  }
  try {
    return confineThread(message.libc, message.landlock);
  } finally {
    Deno.permissions.revokeSync({ name: "ffi" });
  }
}

async function call(
  state: WorkerState,
  message: Extract<ToWorker, { type: "call" }>,
): Promise<void> {
  const started = performance.now();
  const controller = new AbortController();
  state.inflight.set(message.id, controller);
  const paths = new Set<string>();
  const seen: SeenFiles = { reads: [], writes: [] };
  // Changes by other means, found before the tool touches anything.
  const watch = message.watch ?? [];
  const changes = watch.length > 0 ? checkWatched(state.fs, watch) : [];
  /** The content of the call's most recent files (for the host's diffs), at most MAX_TRACKED. */
  const contents = new Map<string, Uint8Array>();
  const keep = (path: string, bytes: Uint8Array) => {
    contents.delete(path);
    contents.set(path, bytes);
    if (contents.size > MAX_TRACKED) contents.delete(contents.keys().next().value!);
  };
  const force = (message.args as { force?: unknown } | undefined)?.force === true;
  const checksStale = !force && state.registry.acceptsForce(message.name);
  const ctx: ToolContext = {
    policy: state.resolver.policy,
    resolver: state.resolver,
    fs: state.fs.withHooks({
      touch: (path) => paths.add(path),
      read: (resolved, file) => {
        seen.reads.push(seenFile(resolved.display, file));
        keep(resolved.display, file.bytes);
      },
      wrote: (resolved, file) => {
        seen.writes.push(seenFile(resolved.display, file));
        keep(resolved.display, file.bytes);
      },
      expected: (path) => (checksStale ? message.expect?.[path] : undefined),
      writes: state.registry.writes(message.name),
    }),
    signal: controller.signal,
    messageWaiting: () => channel.inbox?.waiting() ?? false,
    logger,
    binaries: state.binaries,
    progress(progress, total, text) {
      const note: FromWorker = { type: "progress", id: message.id, progress };
      if (total !== undefined) note.total = total;
      if (text !== undefined) note.message = text;
      post(note);
    },
    shared<T>(key: string, make: () => T): T {
      if (!state.shared.has(key)) state.shared.set(key, make());
      return state.shared.get(key) as T;
    },
  };
  try {
    const result = await state.registry.call(message.name, message.args, ctx);
    const done: FromWorker = { type: "result", id: message.id, result, paths: [...paths] };
    if (seen.reads.length > 0 || seen.writes.length > 0) {
      if (!result.isError) attachTexts(seen, contents, knownTexts(watch, changes));
      done.seen = seen;
    }
    if (changes.length > 0) done.changes = changes;
    post(done);
  } catch (error) {
    if (error instanceof UnknownToolError) post({ type: "unknown_tool", id: message.id });
    else throw error;
  } finally {
    state.inflight.delete(message.id);
    lastCallMs = performance.now() - started;
    if (lastCallMs > LONG_CALL_MS && state.inflight.size === 0) collectGarbage?.();
  }
}

/** Try a raw operation with no resolver in the way: only Deno's permissions can stop it. */
async function probe(message: Extract<ToWorker, { type: "probe" }>): Promise<void> {
  try {
    if (message.probe === "read") await Deno.readFile(message.target);
    else if (message.probe === "read_sync") Deno.readFileSync(message.target);
    else if (message.probe === "write_sync") {
      Deno.writeTextFileSync(message.target, "toolhost doctor probe\n");
    } else if (message.probe === "write") {
      await Deno.writeTextFile(message.target, "toolhost doctor probe\n");
    } else if (message.probe === "run") {
      await new Deno.Command(message.target, { args: ["--version"] }).output();
    } else if (message.probe === "net") await Deno.connect({ hostname: message.target, port: 9 });
    else Deno.env.get(message.target);
    post({ type: "probe_result", id: message.id, error: null });
  } catch (error) {
    post({
      type: "probe_result",
      id: message.id,
      error: error instanceof Error ? error.name : String(error),
    });
  }
}

function main(): void {
  let ready: Promise<WorkerState> | undefined;
  let state: WorkerState | undefined;
  const receive = (message: ToWorker) => {
    if (message.type === "init") {
      // Made before init gives up the FFI permission.
      const relax = threadYielder(message.libc);
      channel.outbox = new Mailbox(message.mailboxes.fromWorker);
      ready = init(message).then((made) => (state = made));
      // Block while idle (no call in flight): the next call then wakes this thread at once.
      const inbox = channel.inbox = new Mailbox(message.mailboxes.toWorker, relax);
      void inbox.listen(
        (each) => receive(each as ToWorker),
        () => state !== undefined && state.inflight.size === 0,
        () => (lastCallMs > LONG_CALL_MS ? 0 : IDLE_SPIN_MS),
      );
    } else if (message.type === "probe") {
      void probe(message);
    } else if (message.type === "check") {
      const answer = (made: WorkerState) =>
        post({ type: "checked", id: message.id, changes: checkWatched(made.fs, message.watch) });
      if (state) answer(state);
      else void ready?.then(answer);
    } else if (message.type === "call") {
      // Start at once when ready, so the call counts as in flight before the listener waits again.
      if (state) void call(state, message);
      else void ready?.then((made) => call(made, message));
    } else if (message.type === "cancel") {
      const reason = message.reason === "timeout"
        ? new ToolError("timeout", "the call ran past its time limit")
        : new ToolError("cancelled", "the client cancelled the call");
      void ready?.then((state) => state.inflight.get(message.id)?.abort(reason));
    }
  };
  self.onmessage = (event: MessageEvent<ToWorker>) => {
    // Everything after init that comes this way was announced in the mailbox (see `announce`).
    if (event.data.type !== "init") channel.inbox?.received();
    receive(event.data);
  };
}

main();
