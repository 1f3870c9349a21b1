/**
 * A span per MCP request other than `tools/call` (whose span the call's
 * observer makes, `tracing.ts`): `initialize`, `tools/list`,
 * `resources/read`, `prompts/get`, `ping`, … — built from the messages the
 * session log is told of (a request in, its response out, paired by session
 * and id), named and described as OpenTelemetry's semantic conventions for
 * MCP server spans say: `{mcp.method.name} {target}` where the target is a
 * prompt's name (a resource's URI is an attribute, never in the name),
 * `mcp.method.name`, `mcp.session.id`, `jsonrpc.request.id`,
 * `mcp.protocol.version`, `network.transport`, `rpc.response.status_code`
 * and `error.type` for an error response, with the client's name. A
 * request whose `params._meta` carries a W3C `traceparent` continues that
 * trace. No parameter is exported but a prompt's name and a resource's URI
 * without its query, fragment or user; a method's name that is not one
 * (a client chooses it) is `_OTHER`.
 *
 * @module
 */

import { type Attributes, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { TraceContext } from "../../tools/calls.ts";
import { parentContext } from "./_trace_context.ts";

/** The most requests waiting for their response (one the client cancelled gets none). */
const MOST_PENDING = 1024;
/** The most sessions whose client and protocol version are kept. */
const MOST_SESSIONS = 1024;

/**
 * JSON-RPC codes a server answers a request it cannot serve with: not errors of the server
 * (the conventions' `mcp.server` span), so they set no `error.type`.
 */
const NOT_SERVER_ERRORS = new Set([-32700, -32600, -32601, -32602, -32002]);

/** What a method's name may be to name a span (others are `_OTHER`: a client chooses them). */
const METHOD_NAME = /^[A-Za-z][A-Za-z_/]{0,63}$/;

/** A request waiting for its response: what its span shows, taken when it came. */
interface Pending {
  readonly method: string;
  readonly id: string | number;
  readonly session: string;
  /** When it came (milliseconds since the epoch, fractional). */
  readonly at: number;
  /** The prompt's name (`prompts/get`). */
  readonly prompt: string | undefined;
  /** The resource's URI without what may hold a secret. */
  readonly uri: string | undefined;
  readonly trace: TraceContext | undefined;
  /** The client its token names. */
  readonly client: string | undefined;
}

/** What a session's `initialize` said. */
interface SessionFacts {
  client?: string;
  protocol?: string;
}

/** Spans of the MCP requests other than `tools/call`, from the messages in and out. */
export class RequestTracing {
  #tracer: Tracer;
  #stdio: string;
  #pending = new Map<string, Pending>();
  #sessions = new Map<string, SessionFacts>();

  /**
   * @param tracer Where spans are made.
   * @param stdioSession The session id of the stdio connection (its transport is a pipe).
   */
  constructor(tracer: Tracer, stdioSession: string) {
    this.#tracer = tracer;
    this.#stdio = stdioSession;
  }

  /**
   * One message in or out (as the session log is told of it). Never throws.
   *
   * @param direction `in` from the client, `out` to it.
   * @param message The JSON-RPC message.
   * @param session Its session.
   * @param client Its client, when a token named one (else what the session's `initialize` said).
   */
  message(direction: "in" | "out", message: unknown, session: string, client?: string): void {
    if (typeof message !== "object" || message === null) return;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof id !== "string" && typeof id !== "number") return;
    try {
      if (direction === "in" && typeof method === "string") this.#request(message, session, client);
      else if (direction === "out" && method === undefined) this.#response(message, session);
    } catch { /* Telemetry never breaks the transport. */ }
  }

  #request(message: object, session: string, client: string | undefined): void {
    const { id, method, params } = message as {
      id: string | number;
      method: string;
      params?: unknown;
    };
    if (method === "tools/call") return;
    const object = typeof params === "object" && params !== null
      ? params as Record<string, unknown>
      : undefined;
    if (method === "initialize") this.#initialized(session, object);
    const at = performance.timeOrigin + performance.now();
    if (this.#pending.size >= MOST_PENDING) {
      this.#pending.delete(this.#pending.keys().next().value!);
    }
    const { name, uri } = object ?? {};
    this.#pending.set(`${session}\n${id}`, {
      method: METHOD_NAME.test(method) ? method : "_OTHER",
      id,
      session,
      at,
      prompt: method === "prompts/get" && typeof name === "string" ? name : undefined,
      uri: typeof uri === "string" ? withoutSecrets(uri) : undefined,
      trace: traceOf(object),
      client,
    });
  }

  #response(message: object, session: string): void {
    // Most responses are tools/call's, which wait in no list: they cost no key.
    if (this.#pending.size === 0) return;
    const { id, result, error } = message as {
      id: string | number;
      result?: unknown;
      error?: unknown;
    };
    const key = `${session}\n${id}`;
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    if (pending.method === "initialize") this.#agreed(session, result);
    const span = this.#tracer.startSpan(spanName(pending), {
      kind: SpanKind.SERVER,
      startTime: pending.at,
      attributes: this.#attributes(pending),
    }, parentContext(pending.trace));
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === "number") {
      span.setAttribute("rpc.response.status_code", String(code));
      if (!NOT_SERVER_ERRORS.has(code)) {
        span.setAttribute("error.type", String(code));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end(performance.timeOrigin + performance.now());
  }

  #attributes(pending: Pending): Attributes {
    const facts = this.#sessions.get(pending.session);
    const attributes: Attributes = {
      "mcp.method.name": pending.method,
      "mcp.session.id": pending.session,
      "jsonrpc.request.id": String(pending.id),
      "network.transport": pending.session === this.#stdio ? "pipe" : "tcp",
    };
    if (facts?.protocol) attributes["mcp.protocol.version"] = facts.protocol;
    const client = pending.client ?? facts?.client;
    if (client) attributes["toolhost.client.name"] = client;
    if (pending.prompt !== undefined) attributes["gen_ai.prompt.name"] = pending.prompt;
    if (pending.uri !== undefined) attributes["mcp.resource.uri"] = pending.uri;
    return attributes;
  }

  /** A client says who it is and which protocol version it asks for. */
  #initialized(session: string, params: Record<string, unknown> | undefined): void {
    const info = params?.clientInfo as { name?: unknown; version?: unknown } | undefined;
    const facts: SessionFacts = {};
    if (typeof info?.name === "string") {
      facts.client = typeof info.version === "string" ? `${info.name}/${info.version}` : info.name;
    }
    if (typeof params?.protocolVersion === "string") facts.protocol = params.protocolVersion;
    if (this.#sessions.size >= MOST_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    this.#sessions.set(session, facts);
  }

  /** The server answers `initialize` with the version the session speaks. */
  #agreed(session: string, result: unknown): void {
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    const facts = this.#sessions.get(session);
    if (facts && typeof version === "string") facts.protocol = version;
  }
}

/** `{mcp.method.name} {target}`: the target is a prompt's name; a resource's URI never is. */
function spanName(pending: Pending): string {
  return pending.prompt === undefined ? pending.method : `${pending.method} ${pending.prompt}`;
}

/** The client's trace context, from the request's `params._meta`. */
function traceOf(params: Record<string, unknown> | undefined): TraceContext | undefined {
  const meta = params?._meta as { traceparent?: unknown; tracestate?: unknown } | undefined;
  if (typeof meta?.traceparent !== "string") return undefined;
  return typeof meta.tracestate === "string"
    ? { traceparent: meta.traceparent, tracestate: meta.tracestate }
    : { traceparent: meta.traceparent };
}

/**
 * A URI without what may hold a secret: its user and password, query and fragment.
 *
 * @param uri A resource's URI.
 * @returns The URI without them.
 */
export function withoutSecrets(uri: string): string {
  const end = uri.search(/[?#]/);
  const bare = end === -1 ? uri : uri.slice(0, end);
  const user = /^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i.exec(bare);
  if (user) return `${user[1]}${bare.slice(user[0].length)}`;
  return bare;
}
