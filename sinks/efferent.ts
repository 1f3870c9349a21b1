/**
 * Efferent copy (seed 000): every tool call mirrored as `observe(tool_name,
 * args)` before and `observe(tool_name, args, result)` after, to every
 * compatible MCP peer found in `.mcp.json`. Sinks are passive: calls are
 * queued and fired after the call's own work, never awaited, each with a
 * 250 ms timeout and a bounded in-flight queue; a sink that fails or times
 * out backs off (1 s doubling to 30 s, one probe at a time), and one that
 * dies is restarted with backoff; drops and failures are counted and warned
 * at most once a minute per sink; the client's results never change.
 *
 * @module
 */

import { Backoff } from "./backoff.ts";
import { isConnectionLoss, isTimeout } from "./mcp_errors.ts";
import { Redactor } from "./redact.ts";
import type { CallOutcome, CallRecord, Sink } from "../tools/calls.ts";
import type { SinkStatus } from "../tools/observe/host_status.ts";

/** Per-sink observe timeout. */
export const OBSERVE_TIMEOUT_MS = 250;
/** Discovery timeout per peer. */
export const DISCOVERY_TIMEOUT_MS = 5_000;
/** Warnings per sink at most this often. */
export const WARN_THROTTLE_MS = 60_000;
/** The longest wait before reconnecting a sink that died. */
export const RECONNECT_MAX_MS = 60_000;
/** Observe calls in flight per sink before new ones are dropped. */
export const MAX_IN_FLIGHT = 32;
/** After a failed or timed-out observe, a sink takes no calls for this long (doubling, up to {@linkcode MAX_BACKOFF_MS}). */
export const BACKOFF_MS = 1_000;
/** The longest pause of a failing sink. */
export const MAX_BACKOFF_MS = 30_000;
/** A sink that stayed up this long is healthy again: its next death is reconnected after 1 s. */
const STABLE_MS = 60_000;
/**
 * Copies held while discovery runs (a pre and a post per call), delivered in
 * order once the sinks are known; past this many the oldest are dropped.
 */
export const HOLD_LIMIT = 1_000;

/**
 * Whether a call of this tool may be mirrored at all: never `observe`
 * itself, nor an upstream's `<server>__observe` (a peer would see its own
 * copies again). Which other tools are mirrored, the host says (their
 * families declare it).
 *
 * @param tool The tool's name.
 * @returns False for `observe` tools.
 */
export function isMirrored(tool: string): boolean {
  return tool !== "observe" && !tool.endsWith("__observe");
}

/** A connection to one peer's `observe` tool. */
export interface ObserveChannel {
  /**
   * Call `observe` once.
   *
   * @param payload `{tool_name, args, result?}`.
   * @param meta The `_meta` to send.
   * @param timeoutMs The timeout.
   */
  observe(
    payload: Record<string, unknown>,
    meta: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<void>;
  /** Close it. */
  close(): Promise<void>;
}

/** One sink: a peer, its counters, and reconnection when it dies. */
export class PeerSink {
  /** Its name in `.mcp.json`. */
  readonly name: string;
  #connect: () => Promise<ObserveChannel>;
  #channel: ObserveChannel | undefined;
  #reconnecting: Promise<void> | undefined;
  #inFlight = 0;
  #lastSuccess: Date | null = null;
  #drops = 0;
  #failures = 0;
  #timeouts = 0;
  #lastWarn = -Infinity;
  #warn: (message: string) => void;
  #closed = false;
  /** Pauses after failed observes. */
  #paused = new Backoff(BACKOFF_MS, MAX_BACKOFF_MS);
  #openUntil = 0;
  /** Waits before reconnecting, while the peer keeps dying. */
  #reconnects = new Backoff(BACKOFF_MS, RECONNECT_MAX_MS);
  #connectedAt = performance.now();
  #cancelWait: (() => void) | undefined;
  /** Copies waiting for a place in flight (held copies being delivered, and those after them). */
  #backlog: Array<[Record<string, unknown>, Record<string, unknown>]> = [];
  /** How long each observe may take. */
  #timeoutMs: number;

  /**
   * @param name The peer's name.
   * @param channel The connected channel.
   * @param connect Makes a new channel (to reconnect a sink that died).
   * @param warn Where (throttled) warnings go.
   * @param timeoutMs How long each observe may take (the user's `sinks.observeTimeoutMs`).
   */
  constructor(
    name: string,
    channel: ObserveChannel,
    connect: () => Promise<ObserveChannel>,
    warn: (message: string) => void,
    timeoutMs = OBSERVE_TIMEOUT_MS,
  ) {
    this.name = name;
    this.#channel = channel;
    this.#connect = connect;
    this.#warn = warn;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Fire one observe call without waiting for it.
   *
   * @param payload The payload.
   * @param meta The `_meta`.
   */
  fire(payload: Record<string, unknown>, meta: Record<string, unknown>): void {
    // Behind a backlog, a copy waits its turn: the peer sees calls in order.
    if (this.#backlog.length > 0) {
      if (this.#backlog.length >= HOLD_LIMIT) this.#drops++;
      else this.#backlog.push([payload, meta]);
      this.#pump();
      return;
    }
    this.#send(payload, meta);
  }

  /**
   * Deliver copies held while discovery ran, in order, as places in flight
   * free up (not dropped for want of one, as live copies beyond the limit are).
   *
   * @param held The copies, oldest first.
   */
  deliver(held: ReadonlyArray<[Record<string, unknown>, Record<string, unknown>]>): void {
    this.#backlog.push(...held);
    this.#pump();
  }

  /** Send from the backlog while there is room in flight (one at a time while backing off). */
  #pump(): void {
    while (this.#backlog.length > 0 && this.#inFlight < this.#limit()) {
      if (this.#closed || !this.#channel || performance.now() < this.#openUntil) {
        // Down or backing off: what waits now is lost, as live copies are then.
        this.#drops += this.#backlog.length;
        this.#backlog = [];
        if (!this.#channel) this.#reconnect();
        return;
      }
      const [payload, meta] = this.#backlog.shift()!;
      this.#send(payload, meta);
    }
  }

  #send(payload: Record<string, unknown>, meta: Record<string, unknown>): void {
    const channel = this.#channel;
    if (this.#closed) return;
    if (!channel) {
      this.#drops++;
      this.#reconnect();
      return;
    }
    if (this.#inFlight >= this.#limit() || performance.now() < this.#openUntil) {
      this.#drops++;
      return;
    }
    this.#inFlight++;
    channel.observe(payload, meta, this.#timeoutMs).then(
      () => {
        this.#lastSuccess = new Date();
        this.#paused.reset();
        if (performance.now() - this.#connectedAt >= STABLE_MS) this.#reconnects.reset();
      },
      (error) => {
        const late = isTimeout(error);
        if (late) this.#timeouts++;
        else this.#failures++;
        this.#throttledWarn(
          `observe on sink "${this.name}" ${late ? "timed out" : "failed"}: ${
            error instanceof Error ? error.message : error
          }`,
        );
        if (isConnectionLoss(error)) {
          if (this.#channel === channel) {
            this.#channel = undefined;
            this.#reconnect();
          }
          return;
        }
        this.#openUntil = performance.now() + this.#paused.fail();
      },
    ).finally(() => {
      this.#inFlight--;
      if (this.#backlog.length > 0) this.#pump();
    });
  }

  /** How many observes may be in flight: a sink that just failed or timed out gets one probe. */
  #limit(): number {
    return this.#paused.failures > 0 ? 1 : MAX_IN_FLIGHT;
  }

  /** The sink's counters. */
  health(): SinkStatus {
    return {
      name: this.name,
      connected: this.#channel !== undefined,
      last_success: this.#lastSuccess?.toISOString() ?? null,
      drops: this.#drops,
      timeouts: this.#timeouts,
      failures: this.#failures,
    };
  }

  /** Close the channel and stop reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelWait?.();
    await this.#reconnecting;
    await this.#channel?.close().catch(() => {
      // Closing a peer that is already gone: nothing is left to release.
    });
  }

  /**
   * Reconnect with exponential backoff (1 s, 2 s, 4 s … 60 s) while the sink
   * keeps dying, so that one that keeps dying costs little; one that stayed
   * up a minute is back to 1 s.
   */
  #reconnect(): void {
    if (this.#reconnecting || this.#closed) return;
    const delay = this.#reconnects.fail();
    this.#reconnecting = (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#cancelWait = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#cancelWait = undefined;
      if (this.#closed) return;
      try {
        const channel = await this.#connect();
        if (this.#closed) {
          await channel.close().catch(() => {
            // Closed while reconnecting: a channel that fails to close is gone already.
          });
          return;
        }
        this.#channel = channel;
        this.#connectedAt = performance.now();
        this.#paused.reset();
        this.#openUntil = 0;
      } catch (error) {
        this.#throttledWarn(
          `sink "${this.name}" could not reconnect: ${
            error instanceof Error ? error.message : error
          }`,
        );
      }
    })().finally(() => (this.#reconnecting = undefined));
  }

  #throttledWarn(message: string): void {
    const now = performance.now();
    if (now - this.#lastWarn < WARN_THROTTLE_MS) return;
    this.#lastWarn = now;
    this.#warn(message);
  }
}

/** A peer of `.mcp.json` that is not a sink, and why. */
export interface RejectedPeer {
  /** Its name in `.mcp.json`. */
  name: string;
  /** Why it is not a sink. */
  reason: string;
}

/** Efferent copy as a whole: whether it is on, its sinks and what it could not use. */
export interface EfferentStatus {
  /** `discovering` until the sinks are known; `on` after (with or without sinks). */
  state: "discovering" | "on";
  /** The sinks' health. */
  sinks: SinkStatus[];
  /** Peers that are not sinks, and why (a peer that could not start, or has no observe tool). */
  not_sinks: RejectedPeer[];
  /** Copies held while discovery ran, waiting now. */
  held: number;
  /** Copies dropped because more than {@linkcode HOLD_LIMIT} were held. */
  held_dropped: number;
}

/** Options for {@linkcode EfferentCopy}. */
export interface EfferentOptions {
  /** Whether a tool's calls are mirrored (default: all but `observe` tools). */
  mirrored?: (tool: string) => boolean;
}

/**
 * Mirrors calls to sinks: a call observer of the dispatcher. It observes
 * from the first call: while discovery runs, copies are held (at most
 * {@linkcode HOLD_LIMIT}) and delivered in order once the sinks are known.
 */
export class EfferentCopy implements Sink {
  #sinks: PeerSink[] | undefined;
  #rejected: RejectedPeer[] = [];
  #held: Array<[Record<string, unknown>, Record<string, unknown>]> = [];
  #heldDropped = 0;
  #pending: Array<[Record<string, unknown>, Record<string, unknown>]> = [];
  #scheduled = false;

  #redactor: Redactor;
  #mirrored: (tool: string) => boolean;

  /**
   * @param sinks The sinks, or `undefined` while discovery runs ({@linkcode EfferentCopy.ready}).
   * @param redactKeys Argument keys redacted in the copies, besides the
   *   defaults (the interaction log's `redactKeys`): secrets never leave for a peer.
   * @param options Which tools are mirrored.
   */
  constructor(
    sinks: PeerSink[] | undefined,
    redactKeys: readonly string[] = [],
    options: EfferentOptions = {},
  ) {
    this.#sinks = sinks;
    this.#redactor = new Redactor(redactKeys);
    const mirrored = options.mirrored ?? (() => true);
    this.#mirrored = (tool) => isMirrored(tool) && mirrored(tool);
  }

  /**
   * The sinks are known: deliver what was held, in order, then mirror as calls come.
   *
   * @param sinks The sinks found.
   * @param rejected The peers that are not sinks, and why.
   */
  ready(sinks: PeerSink[], rejected: RejectedPeer[] = []): void {
    this.#sinks = sinks;
    this.#rejected = rejected;
    const held = this.#held;
    this.#held = [];
    if (held.length > 0) { for (const sink of sinks) sink.deliver(held); }
  }

  /**
   * Fire later, once the call's own work is done: even the synchronous part
   * of a copy (serializing, writing to a pipe) must not sit in the call's path.
   */
  #fire(payload: Record<string, unknown>, meta: Record<string, unknown>): void {
    if (this.#sinks === undefined) {
      this.#held.push([payload, meta]);
      if (this.#held.length > HOLD_LIMIT) {
        this.#held.shift();
        this.#heldDropped++;
      }
      return;
    }
    this.#pending.push([payload, meta]);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      const batch = this.#pending;
      this.#pending = [];
      for (const [each, eachMeta] of batch) {
        for (const sink of this.#sinks ?? []) sink.fire(each, eachMeta);
      }
    }, 0);
  }

  /** The sinks' health. */
  health(): SinkStatus[] {
    return (this.#sinks ?? []).map((sink) => sink.health());
  }

  /** Where efferent copy stands. */
  status(): EfferentStatus {
    return {
      state: this.#sinks === undefined ? "discovering" : "on",
      sinks: this.health(),
      not_sinks: [...this.#rejected],
      held: this.#held.length,
      held_dropped: this.#heldDropped,
    };
  }

  /**
   * Pre-call copy.
   *
   * @param call The call.
   */
  before(call: CallRecord): void {
    if (!this.#mirrored(call.tool) || this.#sinks?.length === 0) return;
    const payload = { tool_name: call.tool, args: this.#args(call.args) };
    const meta = {
      "gen_ai.tool.name": call.tool,
      "gen_ai.operation.name": "execute_tool",
      "toolhost.phase": "pre",
    };
    this.#fire(payload, meta);
  }

  /**
   * Post-call copy, with the result (or `{error, error_type}`).
   *
   * @param call The call.
   * @param outcome How it ended.
   */
  after(call: CallRecord, outcome: CallOutcome): void {
    if (!this.#mirrored(call.tool) || this.#sinks?.length === 0) return;
    const error = errorOf(outcome.result);
    const payload = {
      tool_name: call.tool,
      args: this.#args(call.args),
      result: error ?? coerceResult(outcome.result),
    };
    const meta: Record<string, unknown> = {
      "gen_ai.tool.name": call.tool,
      "gen_ai.operation.name": "execute_tool",
      "toolhost.phase": "post",
      "toolhost.duration_ms": Math.round(outcome.durationMs * 1000) / 1000,
    };
    if (outcome.waitedMs !== undefined) {
      meta["toolhost.waited_ms"] = Math.round(outcome.waitedMs * 1000) / 1000;
    }
    if (error) meta["error.type"] = error.error_type;
    this.#fire(payload, meta);
  }

  #args(args: unknown): Record<string, unknown> {
    return asArgs(this.#redactor.apply(args));
  }

  /** Hands every copy accepted so far to the peers (their answers are not awaited). */
  async flush(): Promise<void> {
    if (this.#scheduled) await new Promise((resolve) => setTimeout(resolve, 0));
  }

  /** Close every sink. */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all((this.#sinks ?? []).map((sink) => sink.close()));
  }
}

/**
 * Result coercion (seed 000): an object passes as it is; anything else
 * becomes `{value: <json-safe>}`.
 *
 * @param result A result.
 * @returns An object.
 */
export function coerceResult(result: unknown): Record<string, unknown> {
  if (typeof result === "object" && result !== null && !Array.isArray(result)) {
    return result as Record<string, unknown>;
  }
  return { value: jsonSafe(result) };
}

function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? "null");
  } catch {
    return String(value);
  }
}

function asArgs(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
}

function errorOf(
  result: CallOutcome["result"],
): { error: string; error_type: string } | undefined {
  if (!result.isError) return undefined;
  const text = result.content.find((block) => block.type === "text")?.text ?? "";
  return { error: text, error_type: /^([a-z_]+): /.exec(text)?.[1] ?? "error" };
}
