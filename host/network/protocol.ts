/**
 * The messages between the host and its network worker, and the settings
 * the worker is started with.
 *
 * @module
 */

import type { FetchedPage, NetRequest, PageFormat, SearchHit } from "../../tools/network.ts";
import type { NetSettings } from "../config/mod.ts";

/** What the worker is told at start: the policy as written (parsed again there), its resolver's sources, its limits. */
export interface WorkerNetSettings extends Omit<NetSettings, "policy" | "permissions" | "denials"> {
  /** `net.allow` as written, or null for none. */
  readonly allow: readonly string[] | null;
  /** `net.deny` as written. */
  readonly deny: readonly string[];
  /** Whether addresses in `allow` make non-public addresses reachable (a config outside the roots). */
  readonly unlocks: boolean;
}

/** Host → network worker. */
export type ToNet =
  | { type: "init"; settings: WorkerNetSettings }
  | { type: "fetch"; id: number; url: string; format: PageFormat }
  | { type: "search"; id: number; query: string; maxResults: number }
  | { type: "cancel"; id: number };

/** One request the worker made (each redirect hop is one), filled in as it goes. */
export type HopRecord = { -readonly [K in keyof NetRequest]: NetRequest[K] };

/** Network worker → host. */
export type FromNet =
  | { type: "ready" }
  | { type: "progress"; id: number; bytes: number; message: string }
  | { type: "fetched"; id: number; page: Omit<FetchedPage, "requests">; hops: HopRecord[] }
  | { type: "found"; id: number; hits: SearchHit[]; hops: HopRecord[] }
  | { type: "failed"; id: number; code: string; message: string; hops: HopRecord[] };

/** An error a model can act on, raised in the worker and sent as `failed`. */
export class NetError extends Error {
  /** `net_denied`, `net_error`, `net_timeout`, `too_large`, `unsupported`, … */
  readonly code: string;

  /**
   * @param code The stable code.
   * @param message What happened and what to do.
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = "NetError";
    this.code = code;
  }
}

/**
 * The JSON messages of a stream, one a line, to its end.
 *
 * @param stream The stream (a process's standard input or output).
 * @returns The messages, parsed.
 */
export async function* jsonLines<T>(stream: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  // The current line's pieces: each chunk is searched once (a long line costs no rescans).
  let pieces: string[] = [];
  for await (const chunk of stream) {
    let text = decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = text.indexOf("\n")) >= 0) {
      const line = pieces.join("") + text.slice(0, newline);
      pieces = [];
      text = text.slice(newline + 1);
      if (line.trim() !== "") yield JSON.parse(line) as T;
    }
    if (text !== "") pieces.push(text);
  }
}
