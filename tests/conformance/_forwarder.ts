/**
 * A loopback forwarder that adds the bearer token to every request, so the
 * conformance suite (which sends no token) can test the host as shipped,
 * token and all. It changes nothing else: a `Host` or `Origin` naming the
 * forwarder is rewritten to name the host (as if the client had reached it
 * directly); any other value — the suite's DNS-rebinding probe — reaches
 * the host untouched. `node:http` carries the `Host` header, which `fetch`
 * would replace.
 *
 * @module
 */

import { type IncomingMessage, request as httpRequest } from "node:http";

/** Headers that describe one hop, not the message. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "content-length"]);

/** A running forwarder; `await using` stops it. */
export interface Forwarder extends AsyncDisposable {
  /** The URL to give the suite in place of the host's. */
  readonly url: string;
}

/**
 * Start forwarding to an MCP endpoint with a token.
 *
 * @param target The host's endpoint.
 * @param token The bearer token.
 * @returns The forwarder.
 */
export function forwardWithToken(target: string, token: string): Forwarder {
  const upstream = new URL(target);
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
  }, (request): Promise<Response> => {
    const self = `127.0.0.1:${server.addr.port}`;
    return forward(request, upstream, { self, token });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}${upstream.pathname}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

async function forward(
  request: Request,
  upstream: URL,
  { self, token }: { self: string; token: string },
): Promise<Response> {
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) if (!HOP.has(name)) headers[name] = value;
  if (headers.host === self) headers.host = upstream.host;
  if (headers.origin === `http://${self}`) {
    headers.origin = `${upstream.protocol}//${upstream.host}`;
  }
  headers.authorization = `Bearer ${token}`;
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  const path = new URL(request.url).pathname + new URL(request.url).search;
  return await new Promise<Response>((resolve, reject) => {
    const outgoing = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      path,
      method: request.method,
      headers,
      agent: false,
    }, (incoming) => resolve(relay(incoming, request.signal)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** The upstream response as a streamed `Response`; the client going away closes it. */
function relay(incoming: IncomingMessage, gone: AbortSignal): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (HOP.has(name) || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Once the reader has gone (cancel), what the host still sends has nowhere to go.
      incoming.on("data", (chunk: Uint8Array) => open && controller.enqueue(new Uint8Array(chunk)));
      incoming.on("end", () => open && controller.close());
      incoming.on("error", (error) => open && controller.error(error));
    },
    cancel: () => {
      open = false;
      incoming.destroy();
    },
  });
  gone.addEventListener("abort", () => incoming.destroy(), { once: true });
  return new Response(body, { status: incoming.statusCode ?? 502, headers });
}
