/**
 * One HTTP/1.1 GET to an address the egress policy checked: the socket is
 * opened to that address (never to a name, so nothing resolves it again),
 * TLS verifies the certificate against the URL's host, and the response is
 * read with bounds — the head to 64 KiB, the body (as sent and decoded) to
 * the page limit — and decoded (chunked; gzip, deflate).
 *
 * Deno's `fetch` resolves names itself and checks only the URL's host, so
 * it cannot be held to the checked address; this client is small because
 * it asks for little: one GET, `Connection: close`, no pooling, no HTTP/2.
 *
 * @module
 */

import { formatAddress, type IpAddress } from "../../security/addresses.ts";
import { NetError } from "./protocol.ts";
import { type HttpLimits, readBody, readHead, SocketReader } from "./_http_read.ts";

/** Where and what to ask. */
export interface HttpRequest {
  /** The URL (its host names the certificate and the `Host` header). */
  readonly url: URL;
  /** The checked address to connect to. */
  readonly address: IpAddress;
  /** The port. */
  readonly port: number;
  /** The `User-Agent` and `Accept` headers. */
  readonly userAgent: string;
  readonly accept: string;
}

/** A response: its head, and the body unless it was a redirect. */
export interface HttpResponse {
  /** The status. */
  readonly status: number;
  /** The headers. */
  readonly headers: Headers;
  /** The body, decoded (empty for a redirect, which is not read). */
  readonly body: Uint8Array;
}

/**
 * Ask for a URL at a checked address.
 *
 * @param request The URL, the address, the headers.
 * @param limits Size limit, cancellation, progress.
 * @returns The response.
 * @throws {NetError} `net_error` (connection, TLS, malformed response), `too_large`.
 */
export async function httpGet(request: HttpRequest, limits: HttpLimits): Promise<HttpResponse> {
  const { url } = request;
  const close = () => conn?.close();
  let conn: Deno.Conn | undefined;
  limits.signal.addEventListener("abort", () => {
    try {
      close();
    } catch { /* already closed */ }
  }, { once: true });
  try {
    const tcp = await Deno.connect({
      hostname: formatAddress(request.address),
      port: request.port,
      signal: limits.signal,
    });
    conn = tcp;
    if (url.protocol === "https:") {
      conn = await Deno.startTls(tcp, {
        hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        alpnProtocols: ["http/1.1"],
      });
    }
    if (limits.signal.aborted) throw limits.signal.reason;
    await writeAll(conn, requestHead(request));
    // The body's limit, and room for the head, interim responses and chunk lines.
    const reader = new SocketReader(conn, limits.maxBytes + limits.maxBytes / 8 + 256 * 1024);
    const head = await readHead(reader);
    if (isRedirect(head.status) && head.headers.has("location")) {
      return { ...head, body: new Uint8Array() };
    }
    const body = await readBody(reader, head, limits);
    return { ...head, body };
  } catch (error) {
    if (limits.signal.aborted) throw limits.signal.reason;
    if (error instanceof NetError) throw error;
    if (error instanceof Deno.errors.NotCapable) {
      // An IPv6 address Deno cannot be given is a limit of the worker, not the policy's refusal.
      throw new NetError(
        request.address.family === 6 ? "net_error" : "net_denied",
        `Cannot fetch ${url.href}: Deno refused the connection to ${
          formatAddress(request.address)
        } (outside the network worker's --allow-net${
          request.address.family === 6 ? ", which holds no IPv6 ranges" : ""
        })`,
      );
    }
    throw new NetError("net_error", `Cannot fetch ${url.href}: ${(error as Error).message}`);
  } finally {
    try {
      close();
    } catch { /* already closed */ }
  }
}

/** Whether a status is a redirect that a Location header completes. */
export function isRedirect(status: number): boolean {
  return [301, 302, 303, 307, 308].includes(status);
}

function requestHead(request: HttpRequest): Uint8Array {
  const { url } = request;
  const lines = [
    `GET ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    `User-Agent: ${request.userAgent}`,
    `Accept: ${request.accept}`,
    "Accept-Encoding: gzip, deflate",
    "Accept-Language: en;q=0.9, *;q=0.5",
    "Connection: close",
  ];
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}
