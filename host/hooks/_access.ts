/**
 * Who may use the Hook API: the HTTP guard's checks (`Host` and `Origin`:
 * 403; the bearer token: 401), answered as the Hook API answers errors —
 * plain JSON, the 401 saying which token and where it is — and which token
 * a request showed, for the request log.
 *
 * @module
 */

import type { HttpGuard } from "../transports/mod.ts";
import type { TokenShown } from "./_request_log.ts";
import { failure } from "./_route.ts";

/** A request's access: refused with a response, or let through; and the token it showed. */
export interface Access {
  /** The refusal, or undefined when the request may go on. */
  refusal?: Response;
  /** Which token it showed. */
  token: TokenShown;
}

/**
 * Check a request.
 *
 * @param guard The guard (bound address, token).
 * @param request The request.
 * @param tokenFile Where the Hook API's token is kept (said in the 401).
 * @returns The refusal, if any, and the token shown.
 */
export async function access(
  guard: HttpGuard,
  request: Request,
  tokenFile: string,
): Promise<Access> {
  const foreign = guard.refuseForeign(request);
  if (foreign) {
    return { refusal: failure(403, await messageOf(foreign)), token: "unchecked" };
  }
  if (guard.refuse(request) === undefined) return { token: "hooks-token" };
  const token = request.headers.has("authorization") ? "wrong" : "none";
  return {
    token,
    refusal: failure(
      401,
      `Unauthorized: send "Authorization: Bearer <token>" with the Hook API's token, kept in "${tokenFile}" (hooks-token, not the MCP clients' http-token); "toolhost dashboard" prints the dashboard's URL with it`,
      {
        fields: { token_file: tokenFile },
        headers: { "WWW-Authenticate": 'Bearer realm="toolhost"' },
      },
    ),
  };
}

/** The message of the guard's refusal (its body is a JSON-RPC error, the MCP endpoint's form). */
async function messageOf(response: Response): Promise<string> {
  try {
    const body = await response.json() as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") return body.error.message;
  } catch {
    // Not the form expected: the status says enough.
  }
  return `Forbidden`;
}
