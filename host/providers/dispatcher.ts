/**
 * The dispatcher: finds the provider of a tool, runs the call, and tells the
 * observers (interaction log, sinks) without ever letting them change or
 * delay the result.
 *
 * @module
 */

import { clearImmediate, setImmediate } from "node:timers";
import { type Directive, parseDirectives } from "../../tools/directives.ts";
import { type ToolDescriptor, UnknownToolError } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { CallObserver, CallOutcome, CallRecord } from "../../tools/calls.ts";
import { callRecord, waitsForEarlierCalls } from "../../tools/calls.ts";
import { INPUT_REQUIRED_META } from "../approvals/mod.ts";
import { holdCall, internalError, type Verdict } from "./_held.ts";

export type { CallObserver, CallOutcome, CallRecord };

/** Who is calling and how the call is followed. */
export interface CallContext {
  /** Aborted when the client cancels. */
  signal?: AbortSignal;
  /** Progress for the client. */
  onProgress?: (progress: number, total?: number, message?: string) => void;
  /** The MCP session (or `cli`, `test`). */
  session: string;
  /** The client's name and version, when known. */
  client: string;
  /** The request's `_meta` (passed through to upstream servers). */
  meta?: Record<string, unknown>;
  /** Ask the client's user through MCP elicitation (when the client supports it). */
  elicit?: (
    message: string,
    schema: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<{ action: string; content?: Record<string, unknown> | undefined }>;
  /**
   * A 2026-07-28 request from a client that elicits: approvals answer with an
   * input-required round, and its retry carries the answer and signed state.
   */
  rounds?: {
    answer?: { action: string; content?: Record<string, unknown> | undefined } | undefined;
    state?: string | undefined;
  };
}

/**
 * What may hold a call before it runs (approvals): undefined lets it run as it is; a verdict runs
 * it with `args`, or answers with `refusal`. A gate that waits for a human calls `onWait` then:
 * that wait is the call's `waitedMs`, never part of its `durationMs`.
 */
export type CallGate = (
  call: CallRecord,
  ctx: CallContext & { onWait?: () => void },
) => Promise<Verdict>;

/** What a provider returns: the result and the paths it touched. */
export interface ProviderResult {
  /** The tool's result. */
  result: ToolResult;
  /** Paths touched, as shown to the model. */
  paths: string[];
}

/** A source of tools: the local registry (via the workers) or an upstream server. */
export interface ToolProvider {
  /** A short name for logs. */
  readonly name: string;
  /** The tools it offers now. */
  list(): ToolDescriptor[];
  /**
   * Whether it answers calls of a tool: by default, those it lists (the local
   * tools also answer a family's that waits for its language to be found).
   *
   * @param name The tool's name.
   */
  serves?(name: string): boolean;
  /**
   * Its calls read nothing the call observers keep (the tool workers' calls):
   * the observers may hear of earlier calls while it runs, not before.
   */
  readonly readsNoObservations?: boolean;
  /**
   * Run one call.
   *
   * @param name The tool's name as listed.
   * @param args Raw arguments.
   * @param ctx The call's context.
   * @throws {UnknownToolError} When it has no such tool.
   */
  call(name: string, args: unknown, ctx: CallContext): Promise<ProviderResult>;
}

/** Options for {@linkcode Dispatcher}. */
export interface DispatcherOptions {
  /** Call observers (the interaction log, statistics, sinks). */
  observers?: CallObserver[];
  /** Where an observer's exception is reported. */
  onObserverError?: (error: unknown) => void;
  /** Applies the directives a result carries (natively, or in an upstream's `_meta`). */
  onDirectives?: (directives: Directive[], call: CallRecord) => void;
  /** The clock for `CallRecord.started` (tests inject one). */
  now?: () => Date;
  /** Holds calls before they run (approvals); none by default. */
  gate?: CallGate;
  /**
   * Where telling the observers of a call waits after its reply went out, and
   * what {@linkcode Dispatcher.settle} runs as well (`host/state/idle_work.ts`);
   * by default they are told on the next turn of the event loop.
   */
  idle?: { add(work: () => void): void; run(): void };
}

/** Routes calls to providers and notifies observers. */
export class Dispatcher {
  #providers: readonly ToolProvider[];
  #observers: CallObserver[];
  #onObserverError: (error: unknown) => void;
  #onDirectives: (directives: Directive[], call: CallRecord) => void;
  #now: () => Date;
  #gate: CallGate | undefined;
  /** Observers' `after` of calls that have ended, not yet run (see {@linkcode Dispatcher.settle}). */
  #later: Array<() => void> = [];
  #timer: ReturnType<typeof setImmediate> | undefined;
  #idle: DispatcherOptions["idle"];

  /**
   * Route calls to providers, in order.
   *
   * @param providers Tool providers; the first that lists a name serves it.
   * @param options Observers, error reporting, directives, the clock.
   */
  constructor(providers: readonly ToolProvider[], options: DispatcherOptions = {}) {
    this.#providers = providers;
    this.#observers = [...(options.observers ?? [])];
    this.#onObserverError = options.onObserverError ?? (() => {});
    this.#onDirectives = options.onDirectives ?? (() => {});
    this.#now = options.now ?? (() => new Date());
    this.#gate = options.gate;
    this.#idle = options.idle;
  }

  /**
   * Add an observer after start-up (sinks discovered in the background).
   *
   * @param observer The observer.
   */
  observe(observer: CallObserver): void {
    this.#observers.push(observer);
  }

  /**
   * Add a gate after start-up (the Hook API's tightening), run before the earlier ones: its
   * refusal ends the call; else its arguments go on to them, and their verdict, if any, wins.
   */
  hold(gate: CallGate): void {
    const earlier = this.#gate;
    this.#gate = earlier === undefined ? gate : async (call, ctx) => {
      const first = await gate(call, ctx);
      if (first?.refusal) return first;
      return await earlier(first ? { ...call, args: first.args } : call, ctx) ?? first;
    };
  }

  /** Every tool of every provider: the providers in the order given, each one's tools in its own order. */
  list(): ToolDescriptor[] {
    return this.#providers.flatMap((provider) => provider.list());
  }

  /**
   * Tell the observers now of every call that has ended (and run the `idle` option's work). They
   * are told after the reply (logging never delays one), at the latest before the next call starts
   * — unless it is a tool worker's and no observer watches calls begin: the pool tells them then.
   */
  settle(): void {
    this.#idle?.run();
    this.#tellNow();
  }

  #tellNow(): void {
    if (this.#timer !== undefined) clearImmediate(this.#timer);
    this.#timer = undefined;
    const later = this.#later;
    this.#later = [];
    for (const tell of later) tell();
  }

  /**
   * Run a call.
   *
   * @param name The tool's name.
   * @param args Raw arguments.
   * @param ctx The call's context.
   * @returns The result.
   * @throws {UnknownToolError} When no provider has the tool.
   */
  async call(name: string, args: unknown, ctx: CallContext): Promise<ToolResult> {
    const provider = this.#providers.find((each) =>
      each.serves ? each.serves(name) : each.list().some((tool) => tool.name === name)
    );
    if (!provider) throw new UnknownToolError(name);
    if (!provider.readsNoObservations || this.#observers.some(waitsForEarlierCalls)) this.settle();
    const record = callRecord(name, args, ctx, this.#now());
    this.#notify((observer) => observer.before?.(record));
    const start = performance.now();
    const { verdict, waitedMs } = this.#gate ? await this.#held(record, ctx, this.#gate) : {};
    const { result, paths } = verdict?.refusal
      ? { result: verdict.refusal, paths: [] }
      : await this.#run(provider, name, verdict ? verdict.args : args, ctx);
    const outcome: CallOutcome = {
      result,
      paths,
      durationMs: performance.now() - start - (waitedMs ?? 0),
      ...(waitedMs === undefined ? {} : { waitedMs }),
      ...(verdict ? { approval: verdict.approval } : {}),
    };
    const directives = result.directives ??
      parseDirectives(
        result._meta,
        (message) => this.#onObserverError(new Error(`${name}: ${message}`)),
      );
    if (directives.length > 0) {
      try {
        this.#onDirectives(directives, record);
      } catch (error) {
        this.#onObserverError(error);
      }
    }
    this.#later.push(() => this.#notify((observer) => observer.after?.(record, outcome)));
    this.#tellLater();
    return result;
  }

  /** Tell the observers once the reply went out: when the host is idle, else on the next turn. */
  #tellLater(): void {
    if (this.#idle) {
      // One telling for all the calls that end before it runs.
      if (this.#later.length === 1) this.#idle.add(() => this.#tellNow());
      return;
    }
    // After the reply is written (that happens in this turn's microtasks); not setTimeout, which
    // waits about 2 ms here, by which time the next call has usually come.
    this.#timer ??= setImmediate(() => this.#tellNow());
  }

  /** The gate's verdict, and the call's wait for a human, told to the observers (`_held.ts`). */
  #held(record: CallRecord, ctx: CallContext, gate: CallGate): ReturnType<typeof holdCall> {
    return holdCall(record.tool, {
      gate: (onWait) => gate(record, { ...ctx, onWait }),
      waiting: (waiting) => this.#notify((observer) => observer.waiting?.(record, waiting)),
      onError: (error) => this.#onObserverError(error),
    });
  }

  /** Run a call on its provider: a provider that throws gives an internal_error result. */
  async #run(
    provider: ToolProvider,
    name: string,
    args: unknown,
    ctx: CallContext,
  ): Promise<ProviderResult> {
    try {
      return withoutRound(await provider.call(name, args, ctx));
    } catch (error) {
      if (error instanceof UnknownToolError) throw error;
      // A provider that throws (rather than returning an error result) still yields a logged,
      // mirrored call, and the client an internal_error without internals.
      this.#onObserverError(error);
      return { result: internalError(name), paths: [] };
    }
  }

  #notify(fn: (observer: CallObserver) => void): void {
    for (const observer of this.#observers) {
      try {
        fn(observer);
      } catch (error) {
        this.#onObserverError(error);
      }
    }
  }
}

/**
 * A provider's result without an input-required round in its `_meta`: only
 * the approvals' gate asks the client's user (an upstream server's result
 * cannot make the host ask in toolhost's name).
 */
function withoutRound(out: ProviderResult): ProviderResult {
  const meta = out.result._meta;
  if (meta === undefined || !(INPUT_REQUIRED_META in meta)) return out;
  const { [INPUT_REQUIRED_META]: _, ...rest } = meta;
  return { ...out, result: { ...out.result, _meta: rest } };
}
