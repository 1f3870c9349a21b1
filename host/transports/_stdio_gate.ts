/**
 * What the HTTP endpoint decides about a message before a server sees it
 * (`http.ts`: the SDK's classification of the body, then a 2025-era
 * session's transport), decided the same way over stdio, where one
 * connection carries every message and is one session:
 *
 * - A message is classified as HTTP classifies a POST's body (the SDK's
 *   `classifyInboundRequest`). One with a 2026-07-28 envelope needs no
 *   `initialize`; a 2025-era request before `initialize` is refused as a
 *   sessionless HTTP request is, and a second `initialize` as an
 *   initialized session's is.
 * - A batch array is refused as HTTP refuses it (empty, holding a 2026-07-28
 *   or an invalid message, over 100 messages, `initialize` with others, an
 *   `initialize` once initialized, anything before `initialize`), or read
 *   message by message, each answered on a line of its own as HTTP answers
 *   each in an event of its own.
 *
 * HTTP answers these refusals with the id `null` (a status says the rest);
 * the stdio transport answers a single request's with its id, or its client
 * would wait for an answer that never comes.
 *
 * @module
 */

import {
  classifyInboundRequest,
  type InboundClassificationOutcome,
  isInitializeRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";

/** The JSON-RPC error a refused message or batch is answered with. */
export interface Refusal {
  /** The error code. */
  code: number;
  /** The message, as HTTP says it. */
  message: string;
  /** What the SDK adds, if anything. */
  data?: unknown;
}

/**
 * The most messages in one batch: the bound of the SDK's HTTP transport,
 * which it does not export.
 */
export const MAX_BATCH_MESSAGES = 100;

/** The HTTP transport's code for a request it refuses before a server sees it. */
const BAD_REQUEST = -32000;

const NOT_INITIALIZED: Refusal = Object.freeze({
  code: BAD_REQUEST,
  message: "Bad Request: Server not initialized",
});

const ALREADY_INITIALIZED: Refusal = Object.freeze({
  code: ProtocolErrorCode.InvalidRequest,
  message: "Invalid Request: Server already initialized",
});

const ONE_INITIALIZE: Refusal = Object.freeze({
  code: ProtocolErrorCode.InvalidRequest,
  message: "Invalid Request: Only one initialization request is allowed",
});

const TOO_MANY: Refusal = Object.freeze({
  code: ProtocolErrorCode.InvalidRequest,
  message: `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`,
});

/** One stdio connection's gate: whether its 2025-era session was initialized. */
export class SessionGate {
  #initialized = false;

  /**
   * A parsed line that is one message (not an array).
   *
   * @param json The parsed line, not yet known to be JSON-RPC.
   * @returns Null to read it on, or the refusal to answer it with (a notification's is only told).
   */
  message(json: unknown): Refusal | null {
    const method = isRecord(json) ? json.method : undefined;
    // Once initialized, only another `initialize` is the gate's. The SDK's classification is kept
    // off the calls that follow: it took about 80 µs a message here, a read_file's whole round
    // trip about 300. A 2026-07-28 message (its claim in `_meta`) is never the gate's either.
    if (method !== "initialize" && (this.#initialized || claimsRevision(json))) return null;
    const route = classified(json);
    // A malformed message is answered further on.
    if (route.kind !== "legacy") return null;
    if (isInitializeRequest(json)) return this.#initialize(1);
    // A response answers a request the server sent, which it does only once initialized.
    if (route.reason === "response" || this.#initialized) return null;
    return NOT_INITIALIZED;
  }

  /**
   * A parsed line that is an array.
   *
   * @param json The array.
   * @returns Null to read its messages one by one, or the refusal to answer it with (id `null`).
   */
  batch(json: unknown[]): Refusal | null {
    const route = classified(json);
    if (route.kind === "reject") {
      const { code, message, data } = route;
      return data === undefined ? { code, message } : { code, message, data };
    }
    if (json.length > MAX_BATCH_MESSAGES) return TOO_MANY;
    if (json.some((message) => isInitializeRequest(message))) return this.#initialize(json.length);
    return this.#initialized ? null : NOT_INITIALIZED;
  }

  #initialize(messages: number): Refusal | null {
    if (this.#initialized) return ALREADY_INITIALIZED;
    if (messages > 1) return ONE_INITIALIZE;
    this.#initialized = true;
    return null;
  }
}

/**
 * Whether a message claims a revision in its `_meta`, as 2026-07-28 messages
 * do: the SDK's classification then never routes it to the 2025-era leg
 * (but for an `initialize`, whose claim must also be valid).
 */
function claimsRevision(json: unknown): boolean {
  if (!isRecord(json) || !isRecord(json.params)) return false;
  const meta = json.params._meta;
  return isRecord(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A line as the HTTP endpoint classifies a POST's body (stdio has no headers). */
function classified(json: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({ httpMethod: "POST", body: json });
}
