/**
 * The web as the network tests see it (no internet here): a fixture site on
 * loopback that records every request it gets, a DNS server the test
 * controls, and a host started the way users start it with a `net` section
 * in a config file outside the root.
 *
 * @module
 */

import dgram from "node:dgram";
import { Buffer } from "node:buffer";
import { type LaunchedHost, launchHost } from "../../_mcp.ts";

/** The fixture pages. */
const FIXTURES = new URL("../../../fixtures/web/", import.meta.url);

/** A fixture site on 127.0.0.1. */
export interface Site extends AsyncDisposable {
  /** Its port. */
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** The path and query of every request it got, in order. */
  readonly requests: string[];
  /** Bytes of `/big` it handed to the connection. */
  readonly bigSent: { bytes: number };
}

/** `/big`'s size: 50 MB, sent chunked. */
export const BIG_BYTES = 50 * 1024 * 1024;

/**
 * Serve the fixture site. Routes: `/article.html`, `/data.json`, `/big`
 * (50 MB of text, chunked), `/slow` (never answers), `/hop/<n>` (redirects
 * down to `/hop/0`), `/gzip.html`, `/image.png`, `/long.txt`, `/ddg/html/`
 * (DuckDuckGo's results; `?q=nothing` its no-results page), `/ddg-empty/`,
 * `/ddg-changed/`, `/bomb` (256 MiB of zeros gzipped), `/redirect?to=<url>`, `/secret` (what
 * SSRF must not reach).
 *
 * @returns The running site.
 */
export function fixtureSite(): Site {
  const requests: string[] = [];
  const bigSent = { bytes: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      requests.push(url.pathname + url.search);
      return await route(url, request, bigSent);
    },
  );
  const port = server.addr.port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    bigSent,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

async function route(url: URL, request: Request, bigSent: { bytes: number }): Promise<Response> {
  const html = (text: string) =>
    new Response(text, { headers: { "content-type": "text/html; charset=utf-8" } });
  const fixture = (name: string) => Deno.readTextFile(new URL(name, FIXTURES));
  const path = url.pathname;
  if (path === "/article.html") return html(await fixture("article.html"));
  if (path === "/data.json") {
    return new Response('{"name":"toolhost","tags":["mcp","deno"],"nested":{"ok":true}}', {
      headers: { "content-type": "application/json" },
    });
  }
  if (path === "/big") return bigResponse(bigSent);
  if (path === "/slow") {
    // Never answers: the client's time limit ends it.
    await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
    return new Response("too late");
  }
  const hop = /^\/hop\/(\d+)$/.exec(path);
  if (hop) {
    const left = Number(hop[1]);
    return left === 0
      ? html("<h1>Arrived</h1>")
      : Response.redirect(new URL(`/hop/${left - 1}`, url), 302);
  }
  if (path === "/gzip.html") {
    const body = new Blob(["<main><h1>Compressed</h1><p>It was gzip.</p></main>"]).stream()
      .pipeThrough(new CompressionStream("gzip"));
    return new Response(body, {
      headers: { "content-type": "text/html", "content-encoding": "gzip" },
    });
  }
  if (path === "/image.png") {
    const png = new Uint8Array(4096);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    return new Response(png, { headers: { "content-type": "image/png" } });
  }
  if (path === "/long.txt") {
    return new Response(longText(), { headers: { "content-type": "text/plain" } });
  }
  if (path === "/ddg/html/") {
    const name = url.searchParams.get("q") === "nothing"
      ? "ddg_no_results.html"
      : "ddg_results.html";
    return html(await fixture(name));
  }
  if (path === "/ddg-empty/") return html("");
  if (path === "/ddg-changed/") {
    return html(
      `<html><body><ol class="react-results--main"><li data-layout="organic"><article data-testid="result"><h2><a data-testid="result-title-a" href="https://docs.python.org/3/">Python docs</a></h2></article></li></ol></body></html>`,
    );
  }
  if (path === "/bomb") return gzipBomb();
  if (path === "/redirect") return Response.redirect(url.searchParams.get("to")!, 302);
  if (path === "/secret") return new Response("the metadata service's credentials");
  return new Response("not here", { status: 404 });
}

/** 50 MB of text in 64 KiB chunks, counting what is handed over (the client stops early). */
function bigResponse(bigSent: { bytes: number }): Response {
  const chunk = new TextEncoder().encode("0123456789abcdef".repeat(4096));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (bigSent.bytes >= BIG_BYTES) return controller.close();
      controller.enqueue(chunk);
      bigSent.bytes += chunk.length;
    },
  }, { highWaterMark: 0 });
  return new Response(body, { headers: { "content-type": "text/plain" } });
}

/** 256 MiB of zeros, gzipped on the fly (about 250 KB on the wire). */
function gzipBomb(): Response {
  const zeros = new Uint8Array(1024 * 1024);
  let left = 256;
  const body = new ReadableStream<BufferSource>({
    pull(controller) {
      if (left-- === 0) return controller.close();
      controller.enqueue(zeros);
    },
  }).pipeThrough(new CompressionStream("gzip"));
  return new Response(body, {
    headers: { "content-type": "text/plain", "content-encoding": "gzip" },
  });
}

/** A server on 127.0.0.1 that answers each connection with fixed bytes, by the request's path. */
export interface RawServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Its port. */
  readonly port: number;
}

/**
 * Serve raw HTTP responses (malformed ones a real server would not send).
 *
 * @param answers The bytes written for each path, then the connection is closed.
 * @returns The running server.
 */
export function rawServer(answers: Record<string, string>): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(16 * 1024);
      const n = await conn.read(buffer).catch(() => null);
      const path = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split(" ")[1] ?? "/";
      await conn.write(new TextEncoder().encode(answers[path] ?? "HTTP/1.1 404 Not Found\r\n\r\n"))
        .catch(() => {});
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await serving.catch(() => {});
    },
  };
}

/**
 * A text of numbered lines, long enough to need several pages.
 *
 * @returns About 60,000 characters.
 */
export function longText(): string {
  return Array.from({ length: 1200 }, (_, i) => `line ${i + 1}: ${"lorem ipsum ".repeat(4)}\n`)
    .join("");
}

/** A DNS server on 127.0.0.1 that answers A queries from a table. */
export interface DnsServer extends AsyncDisposable {
  /** `127.0.0.1:<port>`, for `net.nameServer`. */
  readonly address: string;
  /** Every name asked for. */
  readonly asked: string[];
}

/**
 * Serve DNS over UDP: an A record for each name in the table, nothing else.
 *
 * @param table IPv4 addresses by name.
 * @returns The running server.
 */
export async function dnsServer(table: Record<string, string>): Promise<DnsServer> {
  const socket = dgram.createSocket("udp4");
  const asked: string[] = [];
  socket.on("message", (query: Buffer, peer: { port: number; address: string }) => {
    const labels: string[] = [];
    let at = 12;
    while (query[at] !== 0 && at < query.length) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString());
      at += query[at]! + 1;
    }
    const name = labels.join(".").toLowerCase();
    const type = query.readUInt16BE(at + 1);
    asked.push(name);
    const address = type === 1 ? table[name] : undefined;
    const answers = address
      ? [
        Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...address.split(".").map(Number)]),
      ]
      : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(
      Buffer.concat([header, query.subarray(12, at + 5), ...answers]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked,
    async [Symbol.asyncDispose]() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

/** A host served as users start it, with a `net` section in a config outside its root. */
export interface WebHost extends AsyncDisposable {
  /** The host, through a real MCP client. */
  readonly host: LaunchedHost;
}

/**
 * Start the launch `mcp-config` prints for a root, with this `net` section
 * (and more of toolhost.json) in a config file outside the root.
 *
 * @param root The root.
 * @param file toolhost.json's content.
 * @returns The host; `await using` stops it and removes the config.
 */
export async function launchWeb(root: string, file: Record<string, unknown>): Promise<WebHost> {
  const outside = await Deno.makeTempDir({ prefix: "toolhost-net-config-" });
  const config = `${outside}/toolhost.json`;
  await Deno.writeTextFile(config, JSON.stringify(file));
  const host = await launchHost({ roots: [root], config });
  return {
    host,
    async [Symbol.asyncDispose]() {
      await host[Symbol.asyncDispose]();
      await Deno.remove(outside, { recursive: true });
    },
  };
}
