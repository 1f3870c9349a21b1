/**
 * Seed 001's GUI reads, where this host holds the state:
 *
 * - `GET /api/diagnostics` (seed: `/api/gui/diagnostics`): what runs now —
 *   the calls in flight, the shell commands and fetches among them;
 * - `GET /api/overview` (seed: `/api/gui/mma_status`): the sessions, the
 *   approvals and asks waiting, the open todos;
 * - `GET /api/values` and `GET /api/values/<name>` (seed:
 *   `/api/gui/value[/<tag>]`): named host values — anchors (one anchor at
 *   `anchors/<key>`), todos, notes, status, tools.
 *
 * @module
 */

import type { Host } from "../host.ts";
import { failure, ok, type Route } from "./_route.ts";

/** The named values, and what each holds. */
const VALUES: Readonly<Record<string, { about: string; read: (route: Route) => unknown }>> = {
  anchors: {
    about: "the context anchors' index (key, chars, updated_at); one anchor at anchors/<key>",
    read: ({ host }) =>
      host.anchors.list().map((anchor) => ({
        key: anchor.key,
        chars: anchor.content.length,
        updated_at: anchor.updated_at,
      })),
  },
  todos: { about: "the todo list, each item numbered", read: ({ host }) => numbered(host) },
  notes: {
    about: "a human's notes to the session (POST /api/session)",
    read: ({ host }) => host.notes.list(),
  },
  status: {
    about: "what is in effect: confinement, ripgrep, sandbox, network, sinks, upstreams",
    read: ({ host }) => host.status(),
  },
  tools: {
    about: "the tools listed, and those a human switched off (POST /api/project)",
    read: ({ host, tightening }) => ({
      listed: host.list().map((tool) => tool.name),
      disabled: tightening.view().disabled_tools.map((each) => each.tool),
    }),
  },
};

/**
 * `GET /api/diagnostics`: the calls in flight.
 *
 * @param route The request.
 * @returns `{"diagnostics": {busy, live, calls, shell_commands, fetches, approvals_waiting, asks_waiting}}`.
 */
export function diagnostics(route: Route): Response {
  const calls = route.running.list();
  const shell = calls.filter((call) => call.kind === "shell");
  const fetches = calls.filter((call) => call.kind === "fetch");
  return ok({
    diagnostics: {
      busy: calls.length > 0,
      live: shell.length + fetches.length > 0,
      calls,
      shell_commands: shell,
      fetches,
      approvals_waiting: waitingApprovals(route).length,
      asks_waiting: route.asks.pending().length,
    },
  });
}

/**
 * `GET /api/overview`: sessions, what waits for a human, open todos.
 *
 * @param route The request.
 * @returns `{"overview": {session, sessions, running, approvals_waiting, asks_waiting, open_todos}}`.
 */
export function overview(route: Route): Response {
  const { host } = route;
  return ok({
    overview: {
      session: host.sessions.id,
      sessions: route.watch.sessions().map(({ recent: _, ...summary }) => summary),
      running: route.running.list().length,
      approvals_waiting: waitingApprovals(route).map((each) => ({
        id: each.id,
        tool: each.tool,
        session: each.session,
        asked_at: each.asked_at,
        expires_at: each.expires_at,
      })),
      asks_waiting: route.asks.pending(),
      open_todos: numbered(host).filter((item) => item.status !== "completed"),
      notes: host.notes.list().length,
    },
  });
}

/**
 * `GET /api/values` (the names) and `GET /api/values/<name>`.
 *
 * @param route The request.
 * @returns `{"values": [{name, about}]}`, `{"name", "value"}`, or 404 naming the values.
 */
export function values(route: Route): Response {
  if (route.path === "/api/values") {
    return ok({ values: Object.entries(VALUES).map(([name, { about }]) => ({ name, about })) });
  }
  let name: string;
  try {
    name = decodeURIComponent(route.path.slice("/api/values/".length));
  } catch {
    return failure(400, "The value's name is not a valid URL path");
  }
  if (name.startsWith("anchors/")) return anchor(route.host, name.slice("anchors/".length));
  const value = Object.hasOwn(VALUES, name) ? VALUES[name] : undefined;
  if (value === undefined) {
    return failure(404, `No value "${name}": the values are ${Object.keys(VALUES).join(", ")}`, {
      fields: { values: Object.keys(VALUES) },
    });
  }
  return ok({ name, value: value.read(route) });
}

function anchor(host: Host, key: string): Response {
  const found = host.anchors.get(key);
  if (found === undefined) {
    return failure(404, `No anchor "${key}": GET /api/values/anchors lists them`);
  }
  return ok({ name: `anchors/${key}`, value: found });
}

function waitingApprovals(route: Route) {
  return [...(route.host.approvals?.pending() ?? []), ...route.tightening.pending()];
}

function numbered(host: Host) {
  return host.todos.get().map((item, i) => ({ number: i + 1, ...item }));
}
