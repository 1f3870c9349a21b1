/**
 * A typed client of the Hook API (seed 001's `ApiHookClient`): for test
 * scripts, tooling and humans' own approval bots. It never needs anything
 * but `fetch`.
 *
 * @example
 * ```ts
 * const hooks = new HookClient("http://127.0.0.1:8999", { token });
 * await hooks.waitForServer();
 * const asked = await hooks.waitForEvent("approval_asked");
 * await hooks.approve(String(asked.data.id), { args_hash: String(asked.data.args_hash) });
 * ```
 *
 * @module
 */

import type { EventPage, HookEvent, PendingApproval } from "../approvals/mod.ts";

/** An answer from the Hook API that is not a success. */
export class HookError extends Error {
  /** The HTTP status. */
  readonly status: number;

  /**
   * An error the Hook API answered with.
   *
   * @param status The HTTP status.
   * @param message What the server said.
   */
  constructor(status: number, message: string) {
    super(`Hook API: ${status} ${message}`);
    this.name = "HookError";
    this.status = status;
  }
}

/** Options for {@linkcode HookClient}. */
export interface HookClientOptions {
  /** The bearer token (the state directory's `hooks-token`, not the MCP clients' `http-token`). */
  token: string;
}

/** How an approval is answered. */
export interface DecisionOptions {
  /** Why (said to the agent on a denial). */
  reason?: string;
  /** `session`: approve the tool for the rest of the session (where the rule allows). */
  scope?: "call" | "session";
  /** Who answers. */
  by?: string;
  /** The arguments' hash you saw: refused (409) when the waiting call's differs. */
  args_hash?: string;
}

/** A client of one host's Hook API. */
export class HookClient {
  readonly #base: string;
  readonly #token: string;

  /**
   * A client of one host's Hook API.
   *
   * @param baseUrl The Hook API's URL (default seed 001's `http://127.0.0.1:8999`).
   * @param options The token.
   */
  constructor(baseUrl = "http://127.0.0.1:8999", options: HookClientOptions) {
    this.#base = baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
  }

  /**
   * Poll `GET /status`, backing off, until the server answers.
   *
   * @param timeoutMs The longest wait.
   * @returns True when it answered, false when the time ran out.
   */
  async waitForServer(timeoutMs = 3000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    for (let delay = 50;; delay = Math.min(delay * 2, 1000)) {
      try {
        if ((await this.status()).status === "ok") return true;
      } catch {
        // Not up yet.
      }
      if (Date.now() + delay > end) return false;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** `GET /status`. */
  status(): Promise<{ status: string }> {
    return this.#json("GET", "/status");
  }

  /** `GET /api/project`: the resolved configuration, secrets redacted. */
  async project(): Promise<Record<string, unknown>> {
    return (await this.#json<{ project: Record<string, unknown> }>("GET", "/api/project")).project;
  }

  /** `GET /api/session`: the sessions and their recent calls. */
  async session(): Promise<{ id: string; sessions: Record<string, unknown>[] }> {
    return (await this.#json<{ session: { id: string; sessions: [] } }>("GET", "/api/session"))
      .session;
  }

  /** `GET /api/performance`: what `get_host_performance` gives. */
  async performance(): Promise<Record<string, unknown>> {
    return (await this.#json<{ performance: Record<string, unknown> }>("GET", "/api/performance"))
      .performance;
  }

  /** `GET /api/diagnostics`: the calls in flight, the shell commands and fetches among them. */
  async diagnostics(): Promise<Record<string, unknown>> {
    return (await this.#json<{ diagnostics: Record<string, unknown> }>("GET", "/api/diagnostics"))
      .diagnostics;
  }

  /** `GET /api/overview`: the sessions, the approvals and asks waiting, the open todos. */
  async overview(): Promise<Record<string, unknown>> {
    return (await this.#json<{ overview: Record<string, unknown> }>("GET", "/api/overview"))
      .overview;
  }

  /**
   * `GET /api/values/<name>`: a named host value (`anchors`, `anchors/<key>`, `todos`, `notes`, `status`, `tools`).
   *
   * @param name The value's name.
   * @returns The value.
   */
  async value(name: string): Promise<unknown> {
    const path = `/api/values/${name.split("/").map(encodeURIComponent).join("/")}`;
    return (await this.#json<{ value: unknown }>("GET", path)).value;
  }

  /**
   * `POST /api/session`: leave a note for the session (`bootstrap_body_state` shows it).
   *
   * @param note The note.
   * @param by Your name.
   */
  async note(note: string, by?: string): Promise<void> {
    await this.#json("POST", "/api/session", { note, ...(by === undefined ? {} : { by }) });
  }

  /**
   * `POST /api/project`: tighten the running host — switch tools off, add approval rules.
   *
   * @param change `{disable_tools?, approvals?, by?, reason?}`.
   * @returns What is tightened now.
   */
  async tighten(change: {
    disable_tools?: string[];
    approvals?: Record<string, unknown>[];
    by?: string;
    reason?: string;
  }): Promise<Record<string, unknown>> {
    return (await this.#json<{ tightened: Record<string, unknown> }>(
      "POST",
      "/api/project",
      change,
    ))
      .tightened;
  }

  /**
   * `GET /api/events`: the events after a cursor.
   *
   * @param after The last event seen (0: from the oldest kept).
   * @param waitS Wait up to this long (at most 30 s) for a first event.
   * @returns The page, with the next cursor.
   */
  events(after = 0, waitS = 0): Promise<EventPage> {
    return this.#json("GET", `/api/events?after=${after}&wait=${waitS}`);
  }

  /**
   * Wait for an event of a type (and matching a test), reading from a cursor.
   *
   * @param type The event's type.
   * @param options Where to read from, a further test, the longest wait.
   * @returns The event.
   * @throws {HookError} With status 408 when none came in time.
   */
  async waitForEvent(
    type: string,
    options: { after?: number; match?: (event: HookEvent) => boolean; timeoutMs?: number } = {},
  ): Promise<HookEvent> {
    const end = Date.now() + (options.timeoutMs ?? 60_000);
    let cursor = options.after ?? 0;
    while (Date.now() < end) {
      const wait = Math.max(0, Math.min(25, Math.ceil((end - Date.now()) / 1000)));
      const page = await this.events(cursor, wait);
      const found = page.events.find((event) =>
        event.type === type && (options.match?.(event) ?? true)
      );
      if (found) return found;
      cursor = page.cursor;
    }
    throw new HookError(408, `no "${type}" event in time`);
  }

  /** `GET /api/approvals`: the calls waiting for a human. */
  async approvals(): Promise<PendingApproval[]> {
    return (await this.#json<{ approvals: PendingApproval[] }>("GET", "/api/approvals")).approvals;
  }

  /**
   * Approve a waiting call.
   *
   * @param id The approval's id.
   * @param options Scope, who, the hash seen.
   */
  async approve(id: string, options: DecisionOptions = {}): Promise<void> {
    await this.#json("POST", `/api/approvals/${encodeURIComponent(id)}`, {
      decision: "approve",
      ...options,
    });
  }

  /**
   * Deny a waiting call.
   *
   * @param id The approval's id.
   * @param reason Why (the agent reads it).
   * @param options Who, the hash seen.
   */
  async deny(id: string, reason: string, options: DecisionOptions = {}): Promise<void> {
    await this.#json("POST", `/api/approvals/${encodeURIComponent(id)}`, {
      decision: "deny",
      reason,
      ...options,
    });
  }

  /**
   * `POST /api/ask`: block until someone responds (seed 001's protocol).
   *
   * @param data What is asked.
   * @returns The response, or `timeout` (504).
   */
  async ask(data: unknown): Promise<{ response: unknown } | "timeout"> {
    try {
      return {
        response: (await this.#json<{ response: unknown }>("POST", "/api/ask", data)).response,
      };
    } catch (error) {
      if (error instanceof HookError && error.status === 504) return "timeout";
      throw error;
    }
  }

  /**
   * `POST /api/ask/respond`: answer an ask.
   *
   * @param requestId The ask's `request_id` (from its `ask_received` event).
   * @param response The response.
   * @returns False when no such ask waits (404).
   */
  async respond(requestId: string, response: unknown): Promise<boolean> {
    try {
      await this.#json("POST", "/api/ask/respond", { request_id: requestId, response });
      return true;
    } catch (error) {
      if (error instanceof HookError && error.status === 404) return false;
      throw error;
    }
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.#base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.#token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) {
      let message = text;
      try {
        const { error } = JSON.parse(text);
        message = error?.message ?? error ?? text;
      } catch {
        // Not JSON: the text as it is.
      }
      throw new HookError(response.status, String(message));
    }
    return JSON.parse(text) as T;
  }
}
