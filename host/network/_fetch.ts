/**
 * A fetch under the egress policy: at every hop (the URL asked for, then
 * each redirect) the host is checked, resolved, and every address it
 * resolves to is checked; the connection goes to a checked address. A
 * redirect to another scheme, a refused host or address, or one hop too
 * many ends the fetch with nothing requested from the refused place.
 *
 * @module
 */

import { formatAddress } from "../../security/addresses.ts";
import { addressRefusal, type EgressPolicy, hostRefusal, urlHost } from "../../security/egress.ts";
import { httpGet, type HttpResponse, isRedirect } from "./_http.ts";
import { resolveHost } from "./_resolve.ts";
import { type HopRecord, NetError, type WorkerNetSettings } from "./protocol.ts";

/** A fetch's context. */
export interface FetchContext {
  /** The settings (resolver, limits, User-Agent). */
  readonly settings: WorkerNetSettings;
  /** The policy, parsed. */
  readonly policy: EgressPolicy;
  /** Stops it (cancellation and the time limit). */
  readonly signal: AbortSignal;
  /** Each hop, as it happens. */
  readonly hops: HopRecord[];
  /** Told the body bytes received so far. */
  readonly onBytes?: (bytes: number) => void;
}

/** What a fetch ends with. */
export interface Fetched extends HttpResponse {
  /** Where it ended. */
  readonly url: URL;
  /** The redirects followed. */
  readonly redirects: string[];
}

/**
 * Parse a URL a tool was given: http or https, no credentials.
 *
 * @param text The URL.
 * @returns The URL.
 * @throws {NetError} `invalid_argument` otherwise.
 */
export function httpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NetError("invalid_argument", `${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NetError(
      "invalid_argument",
      `${url.protocol} URLs are not fetched: give an http or https URL`,
    );
  }
  if (url.username || url.password) {
    throw new NetError(
      "invalid_argument",
      "a URL with credentials (user:password@) is not fetched",
    );
  }
  return url;
}

/**
 * Fetch a URL, following redirects, each hop checked.
 *
 * @param start The URL.
 * @param accept The `Accept` header.
 * @param ctx Settings, policy, cancellation, the hop record.
 * @returns The last response and where it came from.
 * @throws {NetError} `net_denied`, `too_many_redirects`, `net_error`, `too_large`, `invalid_argument`.
 */
export async function fetchChecked(
  start: URL,
  accept: string,
  ctx: FetchContext,
): Promise<Fetched> {
  const redirects: string[] = [];
  let url = start;
  for (;;) {
    const response = await oneHop(url, accept, ctx);
    const location = response.headers.get("location");
    if (!isRedirect(response.status) || location === null) return { ...response, url, redirects };
    if (redirects.length >= ctx.settings.maxRedirects) {
      throw new NetError(
        "too_many_redirects",
        `${start.href} redirects more than ${ctx.settings.maxRedirects} times (net.maxRedirects); the last went to ${location}`,
      );
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new NetError(
        "net_error",
        `${url.href} redirects to ${JSON.stringify(location)}, not a URL`,
      );
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new NetError(
        "net_denied",
        `${url.href} redirects to a ${next.protocol} URL, which is not fetched`,
      );
    }
    redirects.push(next.href);
    url = next;
  }
}

/** One request: the host checked, resolved, each address checked, then asked. */
async function oneHop(url: URL, accept: string, ctx: FetchContext): Promise<HttpResponse> {
  const { host, port } = urlHost(url);
  const hop: HopRecord = { url: url.href, address: null, status: null, bytes: 0 };
  ctx.hops.push(hop);
  const refuse = (why: string) => {
    hop.error = `net_denied: ${why}`;
    return new NetError("net_denied", `Cannot fetch ${url.href}: ${why}`);
  };
  const refusedHost = hostRefusal(ctx.policy, host, port);
  if (refusedHost) throw refuse(refusedHost);
  const addresses = await resolveHost(host, ctx.settings, ctx.signal);
  for (const address of addresses) {
    const refused = addressRefusal(ctx.policy, host, address, port);
    if (refused) throw refuse(refused);
  }
  let firstError: unknown;
  for (const address of addresses) {
    hop.address = formatAddress(address);
    try {
      const response = await httpGet({
        url,
        address,
        port,
        userAgent: ctx.settings.userAgent,
        accept,
      }, {
        maxBytes: ctx.settings.maxBytes,
        signal: ctx.signal,
        ...(ctx.onBytes ? { onBytes: ctx.onBytes } : {}),
      });
      hop.status = response.status;
      hop.bytes = response.body.length;
      return response;
    } catch (error) {
      hop.error = (error as Error).message;
      // Another address of the host may answer; a refusal or limit ends the fetch.
      if (ctx.signal.aborted || !(error instanceof NetError) || error.code !== "net_error") {
        throw error;
      }
      // The first failure says most (the IPv6 ones after it may only be out of reach).
      firstError ??= error;
    }
  }
  throw firstError;
}
