/**
 * Approvals over a 2026-07-28 request, which cannot wait for a
 * server-to-client request: the first round answers `input_required` with
 * an elicitation and a signed state naming the approval; the client's retry
 * carries its user's answer and that state back. The state is HMAC-signed
 * with a key that never leaves the host, names the exact tool and
 * arguments' hash, expires with the rule's timeout, and is taken once.
 *
 * @module
 */

import type { ToolResult } from "../../tools/tool.ts";
import { ELICIT_SCHEMA } from "./_approval_parts.ts";

/** What a signed state names. */
export interface RoundState {
  /** The approval's id. */
  readonly id: string;
  /** The tool. */
  readonly tool: string;
  /** The arguments' hash. */
  readonly hash: string;
  /** When it expires (ms since the epoch). */
  readonly exp: number;
}

/** The `_meta` key by which a refusal carries an input-required round to the gateway. */
export const INPUT_REQUIRED_META = "toolhost/input_required";

/** What the gateway turns into an `input_required` result. */
export interface InputRound {
  /** The elicitation's message. */
  readonly message: string;
  /** The elicitation's form. */
  readonly schema: Record<string, unknown>;
  /** The signed state the retry must carry. */
  readonly state: string;
}

/**
 * The result that carries an input-required round to the gateway: an error
 * (the tool did not run; the log says `input_required`) with the round in
 * its `_meta`.
 *
 * @param message The elicitation's message.
 * @param state The signed state.
 * @param timeoutMs How long the round's state is good for.
 * @returns The result.
 */
export function inputRound(message: string, state: string, timeoutMs: number): ToolResult {
  const round: InputRound = { message, schema: ELICIT_SCHEMA, state };
  return {
    content: [{
      type: "text",
      text: `input_required: the user must approve this call (within ${
        Math.round(timeoutMs / 1000)
      } s); nothing was done`,
    }],
    isError: true,
    _meta: { [INPUT_REQUIRED_META]: round },
  };
}

/** The key of the elicitation in `inputRequests` and `inputResponses`. */
export const APPROVAL_INPUT_KEY = "toolhost_approval";

/** Mints and checks signed round states; each verifies once. */
export class RoundStates {
  #key: Promise<CryptoKey>;
  #taken = new Map<string, number>();
  #now: () => number;

  /** @param now The clock, in ms. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#key = crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]) as Promise<CryptoKey>;
  }

  /**
   * A signed state.
   *
   * @param state What it names.
   * @returns `<payload>.<signature>`, base64url.
   */
  async mint(state: RoundState): Promise<string> {
    const payload = base64url(new TextEncoder().encode(JSON.stringify(state)));
    const signature = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      new TextEncoder().encode(payload),
    );
    return `${payload}.${base64url(new Uint8Array(signature))}`;
  }

  /**
   * What a state names, when it is this host's, unexpired, for this tool and
   * hash, and not taken before (it is taken now).
   *
   * @param text The state the client sent back.
   * @param tool The retried call's tool.
   * @param hash The retried call's arguments' hash.
   * @returns The state, or undefined.
   */
  async take(text: string, tool: string, hash: string): Promise<RoundState | undefined> {
    const [payload, signature] = text.split(".");
    if (!payload || !signature) return undefined;
    const bytes = fromBase64url(signature);
    if (bytes === undefined) return undefined;
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      bytes,
      new TextEncoder().encode(payload),
    );
    if (!valid) return undefined;
    const state = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as RoundState;
    const now = this.#now();
    for (const [id, exp] of this.#taken) if (exp < now) this.#taken.delete(id);
    if (state.exp < now || state.tool !== tool || state.hash !== hash) return undefined;
    if (this.#taken.has(state.id)) return undefined;
    this.#taken.set(state.id, state.exp);
    return state;
  }
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}
