/**
 * The Hook API (seed 001's, in this host's terms) and the dashboard, on
 * loopback, behind the same guard as MCP over HTTP: `Host` and `Origin`
 * (403), then the bearer token (401). Off unless configured.
 *
 * @module
 */

import { Redactor } from "../../sinks/redact.ts";
import type { Host } from "../host.ts";
import { HttpGuard, refusal } from "../transports/mod.ts";
import { hostPort } from "../config/mod.ts";
import { Asks } from "./asks.ts";
import { CallWatch } from "./_call_watch.ts";
import { DASHBOARD_FILES, pageHeaders } from "./dashboard.ts";
import { projectView } from "./_project.ts";
import { approvalAnswer, readJson } from "./_requests.ts";
import { watchStatus } from "./_status_watch.ts";

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
}

/** The running Hook API. */
export interface HooksServing {
  /** Its base URL (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** Stop listening. */
  close(): Promise<void>;
}

/** The longest `GET /api/events?wait=` holds a request, in seconds. */
const MAX_WAIT_S = 30;

/** What a route handler gets. */
interface Route {
  host: Host;
  asks: Asks;
  watch: CallWatch;
  request: Request;
  /** Aborted when the client goes or the server closes. */
  signal: AbortSignal;
  path: string;
  query: URLSearchParams;
}

/**
 * Serve the Hook API and the dashboard for a host.
 *
 * @param host The host.
 * @param options Where, the token, the ask timeout.
 * @returns The running server.
 */
export function serveHooks(host: Host, options: HooksOptions): HooksServing {
  const redactor = new Redactor(host.config.log.redactKeys ?? []);
  const watch = new CallWatch(host.events, (args) => redactor.apply(args));
  host.dispatcher.observe(watch);
  const asks = new Asks(host.events, options.askTimeoutMs);
  const stopWatching = watchStatus(host);
  // Closing ends the requests that wait (events, asks) at once.
  const closing = new AbortController();
  // Made once the port is known (the system picks it for 0).
  const state: { guard?: HttpGuard } = {};
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (error) => {
      host.logger.log("error", `Hook API: ${String(error)}`);
      return refusal(500, "Internal Server Error");
    },
  }, (request) => {
    const { guard } = state;
    if (!guard) return refusal(503, "Starting");
    const url = new URL(request.url);
    const signal = AbortSignal.any([request.signal, closing.signal]);
    const route = {
      host,
      asks,
      watch,
      request,
      signal,
      path: url.pathname,
      query: url.searchParams,
    };
    const file = request.method === "GET" ? DASHBOARD_FILES[url.pathname] : undefined;
    if (file) {
      return guard.refuseForeign(request) ??
        new Response(file.body, { headers: pageHeaders(file.type) });
    }
    return guard.refuse(request) ?? handle(route);
  });
  const addr = server.addr;
  state.guard = new HttpGuard({
    hostname: options.hostname,
    port: addr.port,
    token: options.token,
  });
  return {
    url: `http://${hostPort({ hostname: options.hostname, port: addr.port })}/`,
    close: async () => {
      stopWatching();
      closing.abort();
      await server.shutdown();
    },
  };
}

/** The API's routes. */
async function handle(route: Route): Promise<Response> {
  const { host, request, path } = route;
  const get = request.method === "GET";
  // What the observers keep includes the calls just answered (their telling may wait for idle).
  host.dispatcher.settle();
  if (path === "/status") return get ? ok({ status: "ok" }) : notAllowed("GET");
  if (path === "/api/session") {
    return get
      ? ok({ session: { id: host.sessions.id, sessions: route.watch.sessions() } })
      : notAllowed("GET");
  }
  if (path === "/api/performance") {
    return get ? ok({ performance: host.performance() }) : notAllowed("GET");
  }
  if (path === "/api/project") {
    return get ? ok({ project: projectView(host.config) }) : notAllowed("GET");
  }
  if (path === "/api/events") return get ? await events(route) : notAllowed("GET");
  if (path === "/api/approvals") return get ? approvals(host) : notAllowed("GET");
  if (path.startsWith("/api/approvals/")) {
    return request.method === "POST" ? await answer(route) : notAllowed("POST");
  }
  if (path === "/api/ask") return request.method === "POST" ? await ask(route) : notAllowed("POST");
  if (path === "/api/ask/respond") {
    return request.method === "POST" ? await respond(route) : notAllowed("POST");
  }
  return Response.json({ error: `No such endpoint: ${path}` }, { status: 404 });
}

/** `GET /api/events?after=<cursor>&wait=<seconds>&limit=<n>`. */
async function events(route: Route): Promise<Response> {
  const after = Number(route.query.get("after") ?? "0");
  const wait = Number(route.query.get("wait") ?? "0");
  const limit = Number(route.query.get("limit") ?? "500");
  if (![after, wait, limit].every(Number.isFinite) || after < 0 || wait < 0 || limit < 1) {
    return Response.json(
      { error: "after, wait and limit are numbers: after >= 0, wait >= 0 (seconds), limit >= 1" },
      { status: 400 },
    );
  }
  const waitMs = Math.min(wait, MAX_WAIT_S) * 1000;
  return ok(await route.host.events.next(Math.floor(after), waitMs, route.signal, limit));
}

function approvals(host: Host): Response {
  return ok({
    approvals: host.approvals?.pending() ?? [],
    rules: host.config.approvals,
  });
}

/** `POST /api/approvals/<id>`: `{"decision": "approve" | "deny", "reason"?, "scope"?, "by"?, "args_hash"?}`. */
async function answer(route: Route): Promise<Response> {
  let id: string;
  try {
    id = decodeURIComponent(route.path.slice("/api/approvals/".length));
  } catch {
    return Response.json({ error: "The approval's id is not a valid URL path" }, { status: 400 });
  }
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const parsed = approvalAnswer(body.value);
  if (typeof parsed === "string") return Response.json({ error: parsed }, { status: 400 });
  const via = parsed.via === "dashboard" ? "dashboard" : "hook_api";
  const outcome = route.host.approvals?.answer(id, parsed.answer, via) ?? "unknown";
  switch (outcome) {
    case "answered":
      return ok({ status: "ok" });
    case "unknown":
      return Response.json({ error: `No call waits for approval "${id}"` }, { status: 404 });
    case "mismatch":
      return Response.json(
        { error: "args_hash is not the waiting call's: its arguments are not the ones you saw" },
        { status: 409 },
      );
    case "scope":
      return Response.json(
        { error: `The rule allows approving one call only, not the session` },
        { status: 400 },
      );
  }
}

/** `POST /api/ask`: seed 001's blocking ask. */
async function ask(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const result = await route.asks.ask(body.value, route.signal);
  if (result === "busy") {
    return Response.json({ error: "Too many asks wait already" }, { status: 429 });
  }
  if (result === "timeout") {
    return Response.json({ status: "timeout", error: "No response in time" }, { status: 504 });
  }
  return ok({ status: "ok", response: result.response });
}

/** `POST /api/ask/respond`: `{"request_id", "response"}`. */
async function respond(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const value = body.value as { request_id?: unknown; response?: unknown } | null;
  if (typeof value?.request_id !== "string") {
    return Response.json({ error: 'Send {"request_id": ..., "response": ...}' }, { status: 400 });
  }
  if (!route.asks.respond(value.request_id, value.response)) {
    return Response.json({ error: `No ask "${value.request_id}" waits` }, { status: 404 });
  }
  return ok({ status: "ok" });
}

function ok(value: unknown): Response {
  return Response.json(value, { headers: { "Cache-Control": "no-store" } });
}

function notAllowed(method: string): Response {
  return Response.json({ error: `Use ${method}` }, { status: 405, headers: { Allow: method } });
}
