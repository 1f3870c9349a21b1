/**
 * The Hook API's endpoints: a table of paths and methods, and the
 * handlers of the ones that are not views of host state
 * (`_state_views.ts`), a note (`_session_note.ts`) or a tightening
 * (`_tightening.ts`). A seed 001 path served under another name answers 404
 * naming it (`_seed_paths.ts`).
 *
 * @module
 */

import { PROMETHEUS_CONTENT_TYPE } from "../telemetry/mod.ts";
import { projectView } from "./_project.ts";
import { approvalAnswer, readJson } from "./_requests.ts";
import { failure, notAllowed, ok, type Route } from "./_route.ts";
import { seedPathMoved } from "./_seed_paths.ts";
import { addNote } from "./_session_note.ts";
import { diagnostics, overview, values } from "./_state_views.ts";

/** The longest `GET /api/events?wait=` holds a request, in seconds. */
const MAX_WAIT_S = 30;

/** A handler. */
type Handler = (route: Route) => Response | Promise<Response>;

/** An endpoint's handlers by method. */
type Methods = Readonly<Partial<Record<string, Handler>>>;

/** The endpoints by path. */
const ROUTES: Readonly<Record<string, Methods>> = {
  "/status": { GET: () => ok({ status: "ok" }) },
  "/metrics": { GET: metrics },
  "/api/session": { GET: session, POST: addNote },
  "/api/performance": { GET: ({ host }) => ok({ performance: host.performance() }) },
  "/api/project": { GET: project, POST: tighten },
  "/api/events": { GET: events },
  "/api/approvals": { GET: approvals },
  "/api/ask": { POST: ask },
  "/api/ask/respond": { POST: respond },
  "/api/diagnostics": { GET: diagnostics },
  "/api/overview": { GET: overview },
  "/api/values": { GET: values },
};

/** The endpoints with a parameter in their path, by prefix. */
const PREFIXED: ReadonlyArray<[string, Methods]> = [
  ["/api/approvals/", { POST: answer }],
  ["/api/values/", { GET: values }],
];

/**
 * Answer a request that passed the guard.
 *
 * @param route The request and what the handlers read.
 * @returns The response.
 */
export async function handle(route: Route): Promise<Response> {
  const { host, request, path } = route;
  // What the observers keep includes the calls just answered (their telling may wait for idle).
  host.dispatcher.settle();
  const methods = Object.hasOwn(ROUTES, path)
    ? ROUTES[path]
    : PREFIXED.find(([prefix]) => path.startsWith(prefix))?.[1];
  if (methods === undefined) {
    return seedPathMoved(request.method, path) ??
      failure(404, `No such endpoint: ${path} ("The Hook API" in docs/hooks.md lists them)`);
  }
  const handler = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  return handler ? await handler(route) : notAllowed(Object.keys(methods).join(", "));
}

/** `GET /metrics`: the host's metrics, in Prometheus's text exposition format. */
async function metrics({ metrics }: Route): Promise<Response> {
  return new Response(await metrics.prometheus(), {
    headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE, "Cache-Control": "no-store" },
  });
}

/** `GET /api/session`: this connection's session and the recent sessions' calls. */
function session({ host, watch }: Route): Response {
  return ok({ session: { id: host.sessions.id, sessions: watch.sessions() } });
}

/** `GET /api/project`: the configuration, redacted, and what a human tightened since start. */
function project({ host, tightening }: Route): Response {
  return ok({ project: { ...projectView(host.config), tightened: tightening.view() } });
}

/** `POST /api/project`: switch tools off, add approval rules (only what tightens). */
async function tighten(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const tightened = route.tightening.apply(body.value, route.address);
  if (typeof tightened === "string") return failure(400, tightened);
  return ok({ status: "updated", tightened, lasts: "until the host stops" });
}

/** `GET /api/events?after=<cursor>&wait=<seconds>&limit=<n>`. */
async function events(route: Route): Promise<Response> {
  const after = Number(route.query.get("after") ?? "0");
  const wait = Number(route.query.get("wait") ?? "0");
  const limit = Number(route.query.get("limit") ?? "500");
  if (![after, wait, limit].every(Number.isFinite) || after < 0 || wait < 0 || limit < 1) {
    return failure(
      400,
      "after, wait and limit are numbers: after >= 0, wait >= 0 (seconds), limit >= 1",
    );
  }
  const waitMs = Math.min(wait, MAX_WAIT_S) * 1000;
  return ok(await route.host.events.next(Math.floor(after), waitMs, route.signal, limit));
}

/** `GET /api/approvals`: the calls waiting, the configured rules and those added since start. */
function approvals({ host, tightening }: Route): Response {
  return ok({
    approvals: [...(host.approvals?.pending() ?? []), ...tightening.pending()],
    rules: host.config.approvals,
    added_rules: tightening.view().approval_rules,
  });
}

/** `POST /api/approvals/<id>`: `{"decision": "approve" | "deny", "reason"?, "scope"?, "by"?, "args_hash"?}`. */
async function answer(route: Route): Promise<Response> {
  let id: string;
  try {
    id = decodeURIComponent(route.path.slice("/api/approvals/".length));
  } catch {
    return failure(400, "The approval's id is not a valid URL path");
  }
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const parsed = approvalAnswer(body.value);
  if (typeof parsed === "string") return failure(400, parsed);
  const via = parsed.via === "dashboard" ? "dashboard" : "hook_api";
  let outcome = route.host.approvals?.answer(id, parsed.answer, via) ?? "unknown";
  if (outcome === "unknown") outcome = route.tightening.answer(id, parsed.answer, via);
  switch (outcome) {
    case "answered":
      return ok({ status: "ok" });
    case "unknown":
      return failure(404, `No call waits for approval "${id}"`);
    case "mismatch":
      return failure(
        409,
        "args_hash is not the waiting call's: its arguments are not the ones you saw",
      );
    case "scope":
      return failure(400, `The rule allows approving one call only, not the session`);
  }
}

/** `POST /api/ask`: seed 001's blocking ask. */
async function ask(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const result = await route.asks.ask(body.value, route.signal);
  if (result === "busy") return failure(429, "Too many asks wait already");
  if (result === "timeout") {
    return failure(504, "No response in time", { fields: { status: "timeout" } });
  }
  return ok({ status: "ok", response: result.response });
}

/** `POST /api/ask/respond`: `{"request_id", "response"}`. */
async function respond(route: Route): Promise<Response> {
  const body = await readJson(route.request);
  if (!body.ok) return body.response;
  const value = body.value as { request_id?: unknown; response?: unknown } | null;
  if (typeof value?.request_id !== "string") {
    return failure(400, 'Send {"request_id": ..., "response": ...}');
  }
  if (!route.asks.respond(value.request_id, value.response)) {
    return failure(404, `No ask "${value.request_id}" waits`);
  }
  return ok({ status: "ok" });
}
