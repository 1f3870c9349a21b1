/**
 * The network service the web tools use (`tools/network.ts`): requests go
 * to the network worker (`network_worker.ts`), started on first use with
 * the permissions the egress policy gives it, and started again if it
 * dies. Pages are kept a few minutes, so that paging through one fetches it
 * once and every page comes from the same document.
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import type {
  FetchedPage,
  Network,
  NetworkStatus,
  PageFormat,
  SearchHit,
} from "../../tools/network.ts";
import type { NetSettings } from "../config/mod.ts";
import type { FromNet, ToNet } from "./protocol.ts";
import { startWorker, whyNoWorker, type WorkerProcess } from "./_process.ts";

/** How long a fetched page is kept for paging. */
const PAGE_TTL_MS = 10 * 60 * 1000;
/** The most pages kept, and the most characters they hold together. */
const MAX_PAGES = 16;
const MAX_KEPT_CHARS = 32 * 1024 * 1024;

/** How long past the fetch's own time limit the worker may take to answer (parsing a page). */
const ANSWER_GRACE_MS = 30_000;

/** One request waiting for the worker's answer. */
interface Waiting {
  resolve: (message: Extract<FromNet, { type: "fetched" | "found" }>) => void;
  reject: (error: ToolError) => void;
  onProgress?: ((bytes: number, message: string) => void) | undefined;
  /** The worker it was sent to. */
  worker: Promise<WorkerProcess>;
}

/** The network, through its worker. */
export class NetworkService implements Network {
  readonly status: NetworkStatus;
  #settings: NetSettings;
  #worker: Promise<WorkerProcess> | undefined;
  #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #pages = new Map<string, { page: FetchedPage; at: number }>();

  /** @param settings The `net` section, resolved. */
  constructor(settings: NetSettings) {
    this.#settings = settings;
    this.status = Object.freeze(statusOf(settings));
  }

  async fetchPage(request: {
    url: string;
    format: PageFormat;
    signal: AbortSignal;
    onProgress?: (bytes: number, message: string) => void;
  }): Promise<FetchedPage> {
    const key = `${request.format} ${request.url}`;
    const kept = this.#pages.get(key);
    if (kept && Date.now() - kept.at < PAGE_TTL_MS) return kept.page;
    const answer = await this.#ask(
      { type: "fetch", id: 0, url: request.url, format: request.format },
      request.signal,
      request.onProgress,
    );
    if (answer.type !== "fetched") throw new ToolError("internal_error", "unexpected answer");
    const page = { ...answer.page, requests: answer.hops };
    this.#keep(key, page);
    return page;
  }

  async search(
    request: { query: string; maxResults: number; signal: AbortSignal },
  ): Promise<SearchHit[]> {
    const answer = await this.#ask(
      { type: "search", id: 0, query: request.query, maxResults: request.maxResults },
      request.signal,
    );
    if (answer.type !== "found") throw new ToolError("internal_error", "unexpected answer");
    return answer.hits;
  }

  /** Stop the worker (requests in flight fail). */
  close(): void {
    const worker = this.#worker;
    if (!worker) return;
    void worker.then((running) => running.stop(), () => {});
    this.#lost(worker, "the host is shutting down");
  }

  #keep(key: string, page: FetchedPage): void {
    this.#pages.delete(key);
    this.#pages.set(key, { page, at: Date.now() });
    let chars = 0;
    for (const kept of this.#pages.values()) chars += kept.page.text.length;
    while (this.#pages.size > MAX_PAGES || (chars > MAX_KEPT_CHARS && this.#pages.size > 1)) {
      const [oldest, kept] = this.#pages.entries().next().value!;
      chars -= kept.page.text.length;
      this.#pages.delete(oldest);
    }
  }

  async #ask(
    message: Extract<ToNet, { type: "fetch" | "search" }>,
    signal: AbortSignal,
    onProgress?: (bytes: number, message: string) => void,
  ): Promise<Extract<FromNet, { type: "fetched" | "found" }>> {
    const cancelled = () => new ToolError("cancelled", "the client cancelled the call");
    if (signal.aborted) throw cancelled();
    const started = this.#started();
    const worker = await started;
    if (signal.aborted) throw cancelled();
    const id = this.#nextId++;
    return await new Promise((resolve, reject) => {
      const settle = () => (clearTimeout(timer), signal.removeEventListener("abort", cancel));
      const cancel = () => {
        settle();
        worker.send({ type: "cancel", id });
        this.#waiting.delete(id);
        reject(cancelled());
      };
      // A worker that does not answer (stuck parsing a hostile page) is stopped; the next call starts another.
      const limit = this.#settings.timeoutMs + ANSWER_GRACE_MS;
      const timer = setTimeout(() => {
        settle();
        this.#waiting.delete(id);
        reject(
          new ToolError(
            "net_timeout",
            `the network worker did not answer within ${limit / 1000} s`,
          ),
        );
        worker.stop();
      }, limit);
      signal.addEventListener("abort", cancel, { once: true });
      this.#waiting.set(id, {
        resolve: (answer) => (settle(), resolve(answer)),
        reject: (error) => (settle(), reject(error)),
        onProgress,
        worker: started,
      });
      worker.send({ ...message, id });
    });
  }

  /** The worker, started on first use (again after it died). */
  #started(): Promise<WorkerProcess> {
    if (this.#worker) return this.#worker;
    const started: Promise<WorkerProcess> = startWorker(this.#settings, {
      answer: (message) => this.#answer(message),
      // A worker that died takes its requests with it; the next request starts another.
      exited: (why) => this.#lost(started, `the network worker stopped: ${why}`),
    }).catch((error) => {
      if (this.#worker === started) this.#worker = undefined;
      throw error;
    });
    this.#worker = started;
    return started;
  }

  /** A worker is gone: forget it (unless another replaced it) and fail what it had. */
  #lost(worker: Promise<WorkerProcess>, why: string): void {
    if (this.#worker === worker) this.#worker = undefined;
    for (const [id, waiting] of this.#waiting) {
      if (waiting.worker !== worker) continue;
      this.#waiting.delete(id);
      waiting.reject(new ToolError("net_error", why));
    }
  }

  #answer(message: Exclude<FromNet, { type: "ready" }>): void {
    const waiting = this.#waiting.get(message.id);
    if (!waiting) return; // cancelled meanwhile
    if (message.type === "progress") {
      waiting.onProgress?.(message.bytes, message.message);
      return;
    }
    this.#waiting.delete(message.id);
    if (message.type === "failed") {
      waiting.reject(new ToolError(message.code, message.message));
    } else {
      waiting.resolve(message);
    }
  }
}

/**
 * What the web tools reach, in words.
 *
 * @param settings The `net` section resolved, or null when it is off.
 * @returns The status.
 */
export function statusOf(settings: NetSettings | null): NetworkStatus {
  if (settings === null) return { active: false, reason: "switched off (net: false)" };
  const noWorker = whyNoWorker();
  if (noWorker !== null) return { active: false, reason: noWorker };
  const { allow, deny } = settings.policy;
  const unlocked = allow?.filter((entry) => entry.unlocks && entry.range) ?? [];
  const names = allow?.filter((entry) => entry.name) ?? [];
  const reach = [
    `hosts: ${names.length > 0 ? `${names.map((entry) => entry.text).join(", ")} only` : "any"}`,
    `addresses: public${
      unlocked.length > 0 ? ` and ${unlocked.map((entry) => entry.text).join(", ")}` : " only"
    }`,
    ...(deny.length > 0 ? [`never: ${deny.map((entry) => entry.text).join(", ")}`] : []),
  ].join("; ");
  const dns = settings.nameServers.length > 0
    ? `${settings.nameServers.join(", ")} (${settings.nameServersFrom})`
    : `none (${settings.nameServersFrom} lists none): only addresses and the hosts file resolve`;
  return { active: true, reach, dns };
}
