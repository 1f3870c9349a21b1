/**
 * The Hook API (seed 001's, in this host's terms) and the dashboard, on
 * loopback, behind the same guard as MCP over HTTP: `Host` and `Origin`
 * (403), then the bearer token (401), answered as plain JSON. Every request
 * is logged in the session's `apihooks.jsonl` (`_request_log.ts`).
 * `GET /metrics` gives the host's metrics to Prometheus (`../telemetry/`). Off
 * unless configured.
 *
 * @module
 */

import { Redactor } from "../../sinks/redact.ts";
import type { Host } from "../host.ts";
import type { HostMetrics } from "../telemetry/mod.ts";
import { HttpGuard } from "../transports/mod.ts";
import { hostPort } from "../config/mod.ts";
import { HOOKS_TOKEN_FILE } from "../state/mod.ts";
import { Asks } from "./asks.ts";
import { access } from "./_access.ts";
import { CallWatch } from "./_call_watch.ts";
import { DASHBOARD_FILES, pageHeaders } from "./dashboard.ts";
import { NOTES_FILE, REQUEST_LOG_FILE, SessionLineFile, type TokenShown } from "./_request_log.ts";
import { failure, type Route } from "./_route.ts";
import { handle } from "./_routes.ts";
import { RunningCalls } from "./_running.ts";
import { watchStatus } from "./_status_watch.ts";
import { Tightening } from "./_tightening.ts";

/** Options for {@linkcode serveHooks}. */
export interface HooksOptions {
  /** The address (loopback). */
  hostname: string;
  /** The port (0: the system picks). */
  port: number;
  /** The bearer token (the state directory's `hooks-token`: not the MCP clients'). */
  token: string;
  /** How long `POST /api/ask` waits (default 60 s). */
  askTimeoutMs?: number;
  /** The host's metrics, which `GET /metrics` reads (`startTelemetry` observes the calls). */
  metrics: HostMetrics;
}

/** The running Hook API. */
export interface HooksServing {
  /** Its base URL (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** Stop listening. */
  close(): Promise<void>;
}

/** What every request is answered with. */
type Parts = Omit<Route, "request" | "signal" | "path" | "query" | "address"> & {
  /** The guard, once the port is known (the system picks it for 0). */
  state: { guard?: HttpGuard };
  /** Aborted when the server closes (ends the requests that wait: events, asks). */
  closing: AbortController;
  /** Where the token is kept (said in a 401). */
  tokenFile: string;
};

/**
 * Serve the Hook API and the dashboard for a host.
 *
 * @param host The host.
 * @param options Where, the token, the ask timeout.
 * @returns The running server.
 */
export function serveHooks(host: Host, options: HooksOptions): HooksServing {
  const redactor = new Redactor(host.config.log.redactKeys ?? []);
  const redact = (args: unknown) => redactor.apply(args);
  const parts: Parts = {
    host,
    asks: new Asks(host.events, options.askTimeoutMs),
    watch: new CallWatch(host.events, redact),
    running: new RunningCalls(redact),
    metrics: options.metrics,
    tightening: new Tightening(host),
    notes: new SessionLineFile(host, NOTES_FILE),
    state: {},
    closing: new AbortController(),
    tokenFile: `${host.config.policy.stateDir}/${HOOKS_TOKEN_FILE}`,
  };
  host.dispatcher.observe(parts.watch);
  host.dispatcher.observe(parts.running);
  const stopWatching = watchStatus(host);
  const requests = new SessionLineFile(host, REQUEST_LOG_FILE);
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (error) => {
      host.logger.log("error", `Hook API: ${String(error)}`);
      return failure(500, "Internal Server Error");
    },
  }, async (request, info) => {
    const ts = new Date().toISOString();
    const start = performance.now();
    const address = hostPort(info.remoteAddr);
    const { response, token } = await answer(parts, request, address);
    const { method } = request;
    const path = new URL(request.url).pathname;
    const duration_ms = Math.round((performance.now() - start) * 1000) / 1000;
    const caller = { address, token };
    requests.append({ ts, method, path, status: response.status, duration_ms, caller });
    return response;
  });
  const port = server.addr.port;
  parts.state.guard = new HttpGuard({ hostname: options.hostname, port, token: options.token });
  return {
    url: `http://${hostPort({ hostname: options.hostname, port })}/`,
    close: async () => {
      stopWatching();
      parts.closing.abort();
      await server.shutdown();
      requests.close();
      parts.notes.close();
      await parts.tightening.flush();
    },
  };
}

/** A request's response, and the token it showed. */
async function answer(
  parts: Parts,
  request: Request,
  address: string,
): Promise<{ response: Response; token: TokenShown }> {
  const { guard } = parts.state;
  if (!guard) return { response: failure(503, "Starting"), token: "unchecked" };
  const url = new URL(request.url);
  const checked = await access(guard, request, parts.tokenFile);
  const { token } = checked;
  const file = request.method === "GET" ? DASHBOARD_FILES[url.pathname] : undefined;
  // The page and its script hold no data: no token needed, only this server's Host and Origin.
  if (file && checked.refusal?.status !== 403) {
    return { response: new Response(file.body, { headers: pageHeaders(file.type) }), token };
  }
  if (checked.refusal) return { response: checked.refusal, token };
  const { state: _, closing, tokenFile: __, ...shared } = parts;
  const signal = AbortSignal.any([request.signal, closing.signal]);
  const route = {
    ...shared,
    request,
    signal,
    path: url.pathname,
    query: url.searchParams,
    address,
  };
  try {
    return { response: await handle(route), token };
  } catch (error) {
    parts.host.logger.log("error", `Hook API: ${request.method} ${url.pathname}`, String(error));
    return { response: failure(500, "Internal Server Error"), token };
  }
}
