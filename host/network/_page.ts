/**
 * A response made readable, by its `content-type`: HTML to Markdown (or
 * text), JSON pretty-printed, text as it is, anything else refused with its
 * type and size.
 *
 * HTML goes through a real parser and converter, never regular expressions:
 * `hast-util-from-html` (parse5, the WHATWG parsing algorithm browsers
 * follow, so broken markup parses as a browser parses it) gives a syntax
 * tree; the page's main content is picked in it (`main`, `article`,
 * `[role=main]`, else `body`) and scripts, styles, navigation and hidden
 * elements are dropped; `hast-util-to-mdast` and `mdast-util-to-markdown`
 * (with GFM tables) write it as Markdown, keeping headings, links (made
 * absolute), lists, tables and code blocks with their language. All are
 * unified's packages: maintained together, typed, ESM, no native code, and
 * they run in the network worker with no file access. (turndown needs a
 * DOM implementation and has no parser of its own; node-html-markdown uses
 * a non-conforming parser.)
 *
 * @module
 */

import { fromHtml } from "hast-util-from-html";
import { select } from "hast-util-select";
import { toMdast } from "hast-util-to-mdast";
import { toText } from "hast-util-to-text";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import type { Element, Nodes, Root } from "hast";
import type { FetchedPage, PageFormat } from "../../tools/network.ts";
import { isBinary } from "../../tools/_text.ts";
import { NetError } from "./protocol.ts";

/** Elements that carry no reading matter. */
const DROPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "nav",
  "form",
  "button",
  "select",
  "dialog",
]);

/** Attributes holding URLs that are made absolute. */
const URL_ATTRIBUTES = ["href", "src"] as const;

/** A response as the page maker needs it. */
export interface PageSource {
  /** Where it came from (relative links resolve against it). */
  readonly url: URL;
  /** The URL first asked for. */
  readonly requested: string;
  /** The status. */
  readonly status: number;
  /** The `content-type` header, or null. */
  readonly contentType: string | null;
  /** The body, decoded from its transfer and content codings. */
  readonly body: Uint8Array;
  /** The redirects followed. */
  readonly redirects: readonly string[];
}

/**
 * Make a response readable.
 *
 * @param source The response.
 * @param format Markdown or text, for HTML.
 * @returns The page.
 * @throws {NetError} `unsupported` for binary content.
 */
export function pageOf(source: PageSource, format: PageFormat): Omit<FetchedPage, "requests"> {
  const { media, charset } = mediaType(source.contentType, source.body);
  const base = {
    url: source.requested,
    final_url: source.url.href,
    status: source.status,
    content_type: media,
    bytes: source.body.length,
    redirects: source.redirects,
  };
  if (media === "text/html" || media === "application/xhtml+xml") {
    return { ...base, ...htmlPage(source, charset, format) };
  }
  if (media === "application/json" || media.endsWith("+json")) {
    const text = decodeText(source.body, charset);
    return { ...base, title: null, format: "json", text: prettyJson(text) };
  }
  if (textual(media)) {
    return { ...base, title: null, format: "text", text: decodeText(source.body, charset) };
  }
  throw new NetError(
    "unsupported",
    `${source.url.href} is ${media} (${
      source.body.length.toLocaleString("en")
    } bytes), not text: fetch_url returns text, Markdown and JSON only`,
  );
}

/** The media type and charset the header gives; without a header, sniffed as text or not. */
function mediaType(header: string | null, body: Uint8Array): { media: string; charset?: string } {
  if (header === null || header.trim() === "") {
    return { media: isBinary(body) ? "application/octet-stream" : "text/plain" };
  }
  const [type, ...params] = header.split(";");
  const charset = params.map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param)?.[1])
    .find((value) => value !== undefined);
  return { media: type!.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

function textual(media: string): boolean {
  return media.startsWith("text/") || media.endsWith("+xml") || [
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/x-sh",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/sql",
    "application/graphql",
    "application/x-ndjson",
  ].includes(media);
}

/** Bytes as text in their charset (UTF-8 when it is unknown to the decoder). */
function decodeText(body: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text; // not valid JSON after all: as it came
  }
}

/** An HTML page's title and its main content as Markdown or text. */
function htmlPage(
  source: PageSource,
  charset: string | undefined,
  format: PageFormat,
): Pick<FetchedPage, "title" | "format" | "text"> {
  let tree = fromHtml(decodeText(source.body, charset));
  // A page that names its charset only in a <meta> element is decoded again with it.
  const declared = charset ? undefined : metaCharset(tree);
  if (declared && declared.toLowerCase() !== "utf-8") {
    tree = fromHtml(decodeText(source.body, declared));
  }
  const titleElement = select("title", tree);
  const title = titleElement ? toText(titleElement).trim() || null : null;
  const main = select("main", tree) ?? select("article", tree) ?? select("[role=main]", tree) ??
    select("body", tree) ?? tree;
  prune(main, source.url);
  if (format === "text") return { title, format: "text", text: toText(main).trim() + "\n" };
  const markdown = toMarkdown(toMdast(main), { extensions: [gfmToMarkdown()] });
  return { title, format: "markdown", text: markdown };
}

function metaCharset(tree: Root): string | undefined {
  const meta = select("meta[charset]", tree)?.properties.charset;
  if (typeof meta === "string") return meta;
  const equiv = select('meta[http-equiv="content-type" i]', tree)?.properties.content;
  return typeof equiv === "string" ? /charset\s*=\s*([^;\s]+)/i.exec(equiv)?.[1] : undefined;
}

/** Drop what carries no reading matter, and make links absolute, in place. */
function prune(node: Nodes, base: URL): void {
  if (!("children" in node)) return;
  node.children = node.children.filter((child) => !(child.type === "element" && dropped(child)));
  for (const child of node.children) {
    if (child.type === "element") absolute(child, base);
    prune(child, base);
  }
}

function dropped(element: Element): boolean {
  const { properties } = element;
  return DROPPED.has(element.tagName) || properties.hidden === true ||
    properties.ariaHidden === "true";
}

function absolute(element: Element, base: URL): void {
  for (const name of URL_ATTRIBUTES) {
    const value = element.properties[name];
    if (typeof value !== "string") continue;
    try {
      element.properties[name] = new URL(value, base).href;
    } catch {
      // Not a URL: left as written.
    }
  }
}
