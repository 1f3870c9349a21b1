/**
 * Seed 001's GUI endpoints, which this host serves under names of its own
 * (it has no GUI): each answers 404 with JSON naming what replaces it, so
 * that a script written for the seed learns where to go.
 *
 * @module
 */

import { failure } from "./_route.ts";

/** A seed path and its replacement. */
interface Moved {
  /** The seed's endpoint. */
  seed: string;
  /** What toolhost serves instead. */
  replacement: string | string[];
  /** What the replacement gives. */
  why: string;
}

/** What replaces seed 001's `POST /api/gui` (a GUI action: set a value, click, select). */
const GUI_ACTIONS = [
  "POST /api/approvals/<id>",
  "POST /api/ask/respond",
  "POST /api/session",
  "POST /api/project",
];

/**
 * The 404 for a seed path toolhost does not serve, or undefined for any other path.
 *
 * @param method The request's method.
 * @param path The request's path.
 * @returns The response, or undefined.
 */
export function seedPathMoved(method: string, path: string): Response | undefined {
  const moved = movedOf(method, path);
  if (moved === undefined) return undefined;
  const to = Array.isArray(moved.replacement) ? moved.replacement.join(", ") : moved.replacement;
  return failure(404, `${moved.seed} is seed 001's; toolhost serves ${to}: ${moved.why}`, {
    fields: { seed: moved.seed, replacement: moved.replacement },
  });
}

function movedOf(method: string, path: string): Moved | undefined {
  if (path === "/api/gui/diagnostics") {
    return {
      seed: "GET /api/gui/diagnostics",
      replacement: "GET /api/diagnostics",
      why: "the calls in flight, the shell commands and fetches among them",
    };
  }
  if (path === "/api/gui/mma_status") {
    return {
      seed: "GET /api/gui/mma_status",
      replacement: "GET /api/overview",
      why: "the sessions, the approvals and asks waiting, the open todos",
    };
  }
  if (path === "/api/gui/value" || path.startsWith("/api/gui/value/")) {
    const name = path.slice("/api/gui/value/".length);
    return {
      seed: path === "/api/gui/value" ? "GET /api/gui/value" : "GET /api/gui/value/<tag>",
      replacement: name ? `GET /api/values/${name}` : "GET /api/values",
      why: "named host values: anchors, todos, notes, status, tools",
    };
  }
  if (path === "/api/gui" || path.startsWith("/api/gui/")) {
    return {
      seed: `${method} ${path === "/api/gui" ? path : "/api/gui/..."}`,
      replacement: GUI_ACTIONS,
      why:
        "toolhost has no GUI to drive; approve or deny a call, answer an ask, leave a note for the session, or tighten the host",
    };
  }
  return undefined;
}
