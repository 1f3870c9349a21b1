/**
 * The network worker: the only place `fetch_url` and `web_search` reach the
 * network from, a Deno process of its own (`network.ts` starts it). It runs
 * with no file, environment, subprocess, FFI or system access, and
 * `--allow-net` for exactly the public IPv4 space, the addresses the user
 * unlocked and the DNS servers (`security/egress.ts`), so what its code
 * does with a URL it is handed cannot touch the project, and a connection
 * the policy's check would refuse is refused by Deno too. It parses pages as
 * well: an exploit in a parser lands in a process that holds nothing. (A
 * thread cannot be given this: Deno does not let a worker thread hold
 * address ranges unless its parent holds the whole network.)
 *
 * It reads one JSON message a line on standard input and answers the same
 * way on standard output.
 *
 * @module
 */

import { type EgressPolicy, parseHostEntry } from "../../security/egress.ts";
import type { FetchedPage, PageFormat, SearchHit } from "../../tools/network.ts";
import { fetchChecked, type FetchContext, httpUrl } from "./_fetch.ts";
import { pageOf } from "./_page.ts";
import { searchHits, searchUrl } from "./_search.ts";
import {
  type FromNet,
  type HopRecord,
  jsonLines,
  NetError,
  type ToNet,
  type WorkerNetSettings,
} from "./protocol.ts";

/** What pages are asked for as. */
const PAGE_ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5";
/** Progress is reported at most this often, in bytes received. */
const PROGRESS_BYTES = 256 * 1024;

/** Answers on standard output, one JSON object a line, written whole and in order. */
class Output {
  #written: Promise<void> = Promise.resolve();

  /** Send a message. */
  post(message: FromNet): void {
    const bytes = new TextEncoder().encode(`${JSON.stringify(message)}\n`);
    this.#written = this.#written.then(async () => {
      let at = 0;
      while (at < bytes.length) at += await Deno.stdout.write(bytes.subarray(at));
    });
  }

  /** Resolves when everything sent is written. */
  drained(): Promise<void> {
    return this.#written;
  }
}

/** The worker's state: its settings, its policy, the requests running. */
class NetworkWorker {
  #out = new Output();
  #settings: WorkerNetSettings | undefined;
  #policy: EgressPolicy | undefined;
  #running = new Map<number, AbortController>();

  /** Receive the host's messages: one JSON object a line on standard input, to its end. */
  async listen(): Promise<void> {
    for await (const message of jsonLines<ToNet>(Deno.stdin.readable)) this.#receive(message);
    // The host has gone: nothing is left to answer.
    for (const stop of this.#running.values()) stop.abort();
    await this.#out.drained();
  }

  #receive(message: ToNet): void {
    if (message.type === "init") {
      const { settings } = message;
      this.#settings = settings;
      this.#policy = {
        allow: settings.allow?.map((entry) => parseHostEntry(entry, settings.unlocks)) ?? null,
        deny: settings.deny.map((entry) => parseHostEntry(entry)),
      };
      this.#out.post({ type: "ready" });
    } else if (message.type === "cancel") {
      this.#running.get(message.id)?.abort(new NetError("cancelled", "the call was cancelled"));
    } else {
      void this.#serve(message);
    }
  }

  /** Run one request and post its answer. */
  async #serve(message: Extract<ToNet, { type: "fetch" | "search" }>): Promise<void> {
    const settings = this.#settings!;
    const stop = new AbortController();
    this.#running.set(message.id, stop);
    const limit = AbortSignal.timeout(settings.timeoutMs);
    const ctx = {
      settings,
      policy: this.#policy!,
      signal: AbortSignal.any([stop.signal, limit]),
      hops: [] as HopRecord[],
    };
    try {
      if (message.type === "fetch") {
        const progress = (bytes: number) =>
          this.#out.post({
            type: "progress",
            id: message.id,
            bytes,
            message: `${Math.round(bytes / 1024)} KiB received`,
          });
        const page = await fetchPage(message.url, message.format, { ...ctx, progress });
        this.#out.post({ type: "fetched", id: message.id, page, hops: ctx.hops });
      } else {
        const hits = await search(message.query, message.maxResults, ctx);
        this.#out.post({ type: "found", id: message.id, hits, hops: ctx.hops });
      }
    } catch (error) {
      const failure = limit.aborted
        ? new NetError(
          "net_timeout",
          `no whole answer within ${settings.timeoutMs / 1000} s (net.timeoutS)`,
        )
        : error instanceof NetError
        ? error
        : new NetError(
          "bad_response",
          `the response could not be read: ${(error as Error).message}`,
        );
      const { code } = failure;
      this.#out.post({
        type: "failed",
        id: message.id,
        code,
        message: failure.message,
        hops: ctx.hops,
      });
    } finally {
      this.#running.delete(message.id);
    }
  }
}

async function fetchPage(
  text: string,
  format: PageFormat,
  ctx: FetchContext & { progress: (bytes: number) => void },
): Promise<Omit<FetchedPage, "requests">> {
  const url = httpUrl(text);
  let reported = 0;
  const onBytes = (bytes: number) => {
    if (bytes - reported < PROGRESS_BYTES) return;
    reported = bytes;
    ctx.progress(bytes);
  };
  const fetched = await fetchChecked(url, PAGE_ACCEPT, { ...ctx, onBytes });
  if (fetched.status >= 400) {
    throw new NetError("http_error", `${fetched.url.href} answered ${fetched.status}`);
  }
  return pageOf({
    url: fetched.url,
    requested: url.href,
    status: fetched.status,
    contentType: fetched.headers.get("content-type"),
    body: fetched.body,
    redirects: fetched.redirects,
  }, format);
}

async function search(query: string, maxResults: number, ctx: FetchContext): Promise<SearchHit[]> {
  const url = httpUrl(searchUrl(ctx.settings.searchUrl, query).href);
  const fetched = await fetchChecked(url, "text/html", ctx);
  if (fetched.status >= 400) {
    throw new NetError("http_error", `the search engine answered ${fetched.status}`);
  }
  return searchHits(new TextDecoder().decode(fetched.body), fetched.url, query, maxResults);
}

await new NetworkWorker().listen();
