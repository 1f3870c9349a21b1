/**
 * The network contract: how the web tools (`fetch_url`, `web_search`) reach
 * the web. The host provides it as the `network` service
 * (`ctx.shared(NETWORK_SERVICE, …)`); `host/network/` implements it with a
 * worker that has no file access and whose connections the egress policy
 * (`security/egress.ts`) and Deno's permissions both check. Tools never
 * open a connection themselves.
 *
 * @module
 */

import type { ToolContext } from "./tool.ts";
import { ToolError } from "./tool.ts";

/** The key of the network service in a host-side tool's context. */
export const NETWORK_SERVICE = "network";

/** How a page comes back: Markdown (headings, links, code blocks kept) or plain text. */
export type PageFormat = "markdown" | "text";

/** A page fetched and made readable. */
export interface FetchedPage {
  /** The URL asked for. */
  readonly url: string;
  /** Where it ended after redirects. */
  readonly final_url: string;
  /** The HTTP status. */
  readonly status: number;
  /** The media type (`text/html`), without parameters. */
  readonly content_type: string;
  /** The page's title, when it has one. */
  readonly title: string | null;
  /** What `text` is: Markdown, plain text, or pretty-printed JSON. */
  readonly format: "markdown" | "text" | "json";
  /** The whole document (the tool pages it). */
  readonly text: string;
  /** Bytes received (after decompression). */
  readonly bytes: number;
  /** The redirects followed, in order (each hop's URL). */
  readonly redirects: readonly string[];
  /** Each request made for it: the URL, the address connected to, the status, the body bytes. */
  readonly requests: readonly NetRequest[];
}

/** One request the network made (each redirect hop is one). */
export interface NetRequest {
  /** The URL asked for. */
  readonly url: string;
  /** The address connected to, or null when the policy refused it first. */
  readonly address: string | null;
  /** The status, or null when it failed. */
  readonly status: number | null;
  /** Body bytes received. */
  readonly bytes: number;
  /** Why it failed or was refused. */
  readonly error?: string;
}

/** One search result. */
export interface SearchHit {
  /** Its title. */
  readonly title: string;
  /** Where it leads (the result's own URL, not the search engine's redirect). */
  readonly url: string;
  /** The text the engine shows under it. */
  readonly snippet: string;
}

/** What the network is here, for the status line and `get_host_performance`. */
export interface NetworkStatus {
  /** Whether the web tools are served. */
  readonly active: boolean;
  /** Why not, when they are not. */
  readonly reason?: string;
  /** What may be reached, in words (`every public address`, the allow and deny lists). */
  readonly reach?: string;
  /** The DNS servers asked, and where from. */
  readonly dns?: string;
}

/** What the web tools ask of the network. */
export interface Network {
  /** What is in effect. */
  readonly status: NetworkStatus;
  /**
   * Fetch a URL (redirects followed, each hop checked) and make it readable.
   *
   * @param request The URL, the format, cancellation and progress.
   * @returns The page.
   * @throws {ToolError} `net_denied`, `net_error`, `net_timeout`, `too_large`, `unsupported`, `cancelled`.
   */
  fetchPage(request: {
    url: string;
    format: PageFormat;
    signal: AbortSignal;
    onProgress?: (bytes: number, message: string) => void;
  }): Promise<FetchedPage>;
  /**
   * Search the web (`net.searchUrl`, DuckDuckGo's HTML results by default).
   *
   * @param request The query, how many results, cancellation.
   * @returns The results, at least one.
   * @throws {ToolError} As `fetchPage`, and `no_results` or `bad_response` when the page has none or changed.
   */
  search(request: { query: string; maxResults: number; signal: AbortSignal }): Promise<SearchHit[]>;
}

/**
 * The network the host gave this context.
 *
 * @param ctx The tool context.
 * @returns The network.
 * @throws {ToolError} `unsupported` where the host gave none (the web tools are off).
 */
export function networkOf(ctx: ToolContext): Network {
  return ctx.shared<Network>(NETWORK_SERVICE, () => {
    throw new ToolError("unsupported", "The web tools run only in the host's own process");
  });
}
