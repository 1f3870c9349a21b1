/**
 * What every HTTP request passes before MCP sees it: a `Host` naming the
 * bound address and an `Origin`, when sent, of that address (DNS
 * rebinding: 403), then the bearer token (401).
 *
 * @module
 */

import { sameToken } from "../../security/tokens.ts";
import { bracketed, isWildcard } from "../config/mod.ts";

/** Options for {@linkcode HttpGuard}. */
export interface HttpGuardOptions {
  /** The address bound. */
  hostname: string;
  /** The port bound. */
  port: number;
  /** The bearer token, or null when none is asked for (the conformance fixtures). */
  token: string | null;
}

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Checks a request's `Host`, `Origin` and `Authorization` headers. On a
 * wildcard address (`--allow-remote` on 0.0.0.0) any `Host` is taken, and an
 * `Origin` must be that host's own.
 */
export class HttpGuard {
  #hosts: Set<string> | null;
  #origins: Set<string>;
  #token: string | null;

  /** @param options The bound address and the token. */
  constructor(options: HttpGuardOptions) {
    const bound = bracketed(options.hostname);
    const names = LOOPBACK_NAMES.includes(bound) || bound === "::1" ? LOOPBACK_NAMES : [bound];
    const hosts = names.map((name) => `${name}:${options.port}`);
    this.#hosts = isWildcard(options.hostname) ? null : new Set(hosts);
    this.#origins = new Set(hosts.flatMap((host) => [`http://${host}`, `https://${host}`]));
    this.#token = options.token;
  }

  /**
   * The refusal for a request, or undefined when it may go on.
   *
   * @param request The request.
   * @returns A 403 or 401 response, or undefined.
   */
  refuse(request: Request): Response | undefined {
    const foreign = this.refuseForeign(request);
    if (foreign) return foreign;
    if (this.#token !== null && !this.#authorized(request.headers.get("authorization"))) {
      return unauthorized();
    }
    return undefined;
  }

  /**
   * The refusal for a request from elsewhere (its `Host` or `Origin`), the
   * token aside: for what holds no data (the dashboard's page and script).
   *
   * @param request The request.
   * @returns A 403 response, or undefined.
   */
  refuseForeign(request: Request): Response | undefined {
    const host = request.headers.get("host")?.toLowerCase() ?? null;
    if (host === null || (this.#hosts !== null && !this.#hosts.has(host))) {
      return refusal(403, `Forbidden: the Host header "${host ?? ""}" is not this server`);
    }
    const origin = request.headers.get("origin")?.toLowerCase() ?? null;
    const origins = this.#hosts === null
      ? new Set([`http://${host}`, `https://${host}`])
      : this.#origins;
    if (origin !== null && !origins.has(origin)) {
      return refusal(403, `Forbidden: the Origin "${origin}" may not use this server`);
    }
    return undefined;
  }

  #authorized(header: string | null): boolean {
    const token = bearerOf(header);
    return token !== null && sameToken(token, this.#token!);
  }
}

/**
 * The bearer token an `Authorization` header carries.
 *
 * @param header The header's value.
 * @returns The token, or null when there is none.
 */
export function bearerOf(header: string | null): string | null {
  const match = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * The answer to a request without a token of this server's.
 *
 * @returns A 401 response.
 */
export function unauthorized(): Response {
  return refusal(
    401,
    "Unauthorized: send Authorization: Bearer <token> (toolhost mcp-config --http or toolhost token add prints one)",
    { "WWW-Authenticate": 'Bearer realm="toolhost"' },
  );
}

/**
 * A JSON-RPC error answer with an HTTP status (no request id: none was read).
 *
 * @param status The HTTP status.
 * @param message What went wrong.
 * @param headers More headers.
 * @returns The response.
 */
export function refusal(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32000, message } },
    { status, headers },
  );
}
