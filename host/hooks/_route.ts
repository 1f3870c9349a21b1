/**
 * What a Hook API route handler gets, and its answers: plain JSON, errors
 * as `{"error": "..."}` (never a JSON-RPC envelope: this is no MCP endpoint).
 *
 * @module
 */

import type { Host } from "../host.ts";
import type { HostMetrics } from "../telemetry/mod.ts";
import type { Asks } from "./asks.ts";
import type { CallWatch } from "./_call_watch.ts";
import type { SessionLineFile } from "./_request_log.ts";
import type { RunningCalls } from "./_running.ts";
import type { Tightening } from "./_tightening.ts";

/** What a route handler gets. */
export interface Route {
  host: Host;
  asks: Asks;
  watch: CallWatch;
  /** The calls in flight. */
  running: RunningCalls;
  /** The host's metrics (`GET /metrics`). */
  metrics: HostMetrics;
  /** What a human tightened while the host runs. */
  tightening: Tightening;
  /** The session's `notes.jsonl`. */
  notes: SessionLineFile;
  request: Request;
  /** Aborted when the client goes or the server closes. */
  signal: AbortSignal;
  path: string;
  query: URLSearchParams;
  /** The caller's address (`127.0.0.1:54321`). */
  address: string;
}

/**
 * A 200 answer, never cached.
 *
 * @param value The body.
 * @returns The response.
 */
export function ok(value: unknown): Response {
  return Response.json(value, { headers: { "Cache-Control": "no-store" } });
}

/**
 * An error answer: `{"error": message, ...more}`.
 *
 * @param status The HTTP status.
 * @param message What went wrong and what to do.
 * @param more More fields (`replacement`, `token_file`), and headers.
 * @returns The response.
 */
export function failure(
  status: number,
  message: string,
  more: { fields?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  return Response.json({ error: message, ...more.fields }, {
    status,
    headers: { "Cache-Control": "no-store", ...more.headers },
  });
}

/**
 * A 405 naming the method to use.
 *
 * @param method The method the endpoint takes.
 * @returns The response.
 */
export function notAllowed(method: string): Response {
  return failure(405, `Use ${method}`, { headers: { Allow: method } });
}
