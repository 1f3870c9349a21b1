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
import { holdCall, internalError } from "./_held.ts";
import type { CallContext, CallGate, ProviderResult, ToolProvider } from "./call_types.ts";

export type { CallObserver, CallOutcome, CallRecord };
export type {
  Admission,
  CallContext,
  CallGate,
  CallScope,
  ProviderResult,
  ToolProvider,
} from "./call_types.ts";

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
   *
   * @internal The Hook API's wiring, not part of the library's API.
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
    // The client's rights and limits first: a call refused there waits for no human.
    const admitted = ctx.admit?.(name);
    let outcome: CallOutcome & { result: ToolResult };
    try {
      const refused = admitted && "refusal" in admitted ? admitted.refusal : undefined;
      const { verdict, waitedMs } = !refused && this.#gate
        ? await this.#held(record, ctx, this.#gate)
        : { verdict: undefined, waitedMs: undefined };
      const refusal = refused ?? verdict?.refusal;
      const { result, paths, queuedMs, phases }: ProviderResult = refusal
        ? { result: refusal, paths: [] }
        : await this.#run(provider, name, verdict ? verdict.args : args, ctx);
      outcome = {
        result,
        paths,
        durationMs: performance.now() - start - (waitedMs ?? 0),
        ...(waitedMs === undefined ? {} : { waitedMs }),
        ...(verdict ? { approval: verdict.approval } : {}),
        ...(queuedMs === undefined ? {} : { queuedMs }),
        ...(phases ? { phases } : {}),
      };
    } finally {
      if (admitted && "release" in admitted) admitted.release();
    }
    const { result } = outcome;
    this.#directives(name, result, record);
    this.#later.push(() => this.#notify((observer) => observer.after?.(record, outcome)));
    this.#tellLater();
    return result;
  }

  /** Apply the directives a result carries (natively, or in an upstream's `_meta`). */
  #directives(name: string, result: ToolResult, record: CallRecord): void {
    const directives = result.directives ??
      parseDirectives(
        result._meta,
        (message) => this.#onObserverError(new Error(`${name}: ${message}`)),
      );
    if (directives.length === 0) return;
    try {
      this.#onDirectives(directives, record);
    } catch (error) {
      this.#onObserverError(error);
    }
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
