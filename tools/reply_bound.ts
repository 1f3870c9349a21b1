/**
 * The output bound of a reply: text, `structuredContent`, `_meta` and
 * directives together, measured as the UTF-8 bytes of the reply serialized
 * as JSON. Tool workers bound what their tools return (the work of cutting
 * stays off the host's thread); the host bounds every reply again before it
 * goes out, whatever produced it (host-side tools, upstream servers, the
 * notices it adds).
 *
 * @module
 */

import type { ToolResult } from "./tool.ts";

/** Room kept for the JSON-RPC envelope and the notes that say what was cut. */
export const REPLY_RESERVE_BYTES = 1024;

/** The smallest bound a reply can be cut to and still say why. */
export const MIN_REPLY_BYTES = 4096;

/** How to ask for less, in every note. */
const ASK_FOR_LESS =
  "ask for less (a line range, a narrower pattern or path, a smaller limit or max_depth)";

/** Options for {@linkcode boundReply}. */
export interface BoundOptions {
  /**
   * Whether directives and `_meta` may be left out of the reply (the host
   * has applied them already); a worker keeps them, the host needs them.
   */
  dropMeta?: boolean;
}

/**
 * The UTF-8 size of a value serialized as JSON.
 *
 * @param value Any JSON value.
 * @returns Its size in bytes (0 for `undefined`).
 */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : utf8Bytes(json);
}

/**
 * A reply that fits `maxBytes` serialized: the largest parts are cut first
 * (long texts end with a note, long arrays and strings in
 * `structuredContent` are shortened, so the content still matches its
 * schema); a reply that cannot be cut to fit becomes a `too_large` error
 * that says how to ask for less.
 *
 * @param result The reply.
 * @param maxBytes The bound.
 * @param options Whether `_meta` and directives may go.
 * @returns The reply itself when it fits, else a bounded copy.
 */
export function boundReply(
  result: ToolResult,
  maxBytes: number,
  options: BoundOptions = {},
): ToolResult {
  const size = jsonBytes(result);
  if (size <= maxBytes) return result;
  let bounded = result;
  const notes: string[] = [];
  if (options.dropMeta && (result.directives || result._meta)) {
    const { directives: _directives, _meta: _dropped, ...rest } = result;
    bounded = rest;
    notes.push("its directives and _meta were left out (anchors stay readable as resources)");
  }
  const available = maxBytes - REPLY_RESERVE_BYTES -
    jsonBytes({ ...bounded, content: [], structuredContent: undefined });
  const textSize = jsonBytes(bounded.content);
  const structuredSize = jsonBytes(bounded.structuredContent ?? null);
  const [textShare, structuredShare] = shares(available, textSize, structuredSize);
  if (bounded.structuredContent && structuredSize > structuredShare) {
    bounded = {
      ...bounded,
      structuredContent: shrinkJson(bounded.structuredContent, structuredShare),
    };
    notes.push("its structuredContent was shortened");
  }
  if (textSize > textShare) {
    bounded = { ...bounded, content: cutContent(bounded.content, textShare) };
  }
  const note = `[truncated: the reply was ${size} bytes, over the bound of ${maxBytes}${
    notes.length > 0 ? `; ${notes.join("; ")}` : ""
  }; ${ASK_FOR_LESS}]`;
  bounded = { ...bounded, content: [...bounded.content, { type: "text", text: note }] };
  if (jsonBytes(bounded) <= maxBytes) return bounded;
  return {
    content: [{
      type: "text",
      text:
        `too_large: The reply is ${size} bytes and cannot be cut to the bound of ${maxBytes}; ${ASK_FOR_LESS}`,
    }],
    isError: true,
  };
}

/** Split what is available between text and structured content: a small part keeps all it has. */
function shares(available: number, text: number, structured: number): [number, number] {
  const room = Math.max(0, available);
  if (structured === 0) return [room, 0];
  if (text <= room / 2) return [text, room - text];
  if (structured <= room / 2) return [room - structured, structured];
  return [Math.floor(room / 2), Math.floor(room / 2)];
}

/** Cut the text blocks (the longest first) and drop other large blocks until they fit. */
function cutContent(content: ToolResult["content"], budget: number): ToolResult["content"] {
  const sizes = content.map((block) => jsonBytes(block));
  let excess = sizes.reduce((sum, each) => sum + each, 0) - budget;
  const order = sizes.map((size, i) => ({ size, i })).sort((a, b) => b.size - a.size);
  const out = [...content];
  for (const { size, i } of order) {
    if (excess <= 0) break;
    const block = out[i]!;
    const keep = Math.max(0, size - excess - 64);
    if (block.type === "text") {
      out[i] = { type: "text", text: cutString(block.text, keep) };
    } else {
      out[i] = { type: "text", text: `[a ${block.type} block of ${size} bytes was left out]` };
    }
    excess -= size - jsonBytes(out[i]);
  }
  return out;
}

/**
 * Shorten the longest arrays and strings in a JSON value until it
 * serializes within `budget` bytes (objects keep all their keys, so a
 * schema's required properties stay).
 */
function shrinkJson<T>(value: T, budget: number): T {
  let current = value;
  for (let pass = 0; pass < 32; pass++) {
    const size = jsonBytes(current);
    if (size <= budget) return current;
    const largest = largestCuttable(current);
    if (!largest) return current;
    current = replaceAt(
      current,
      largest.path,
      cutNode(largest.node, largest.size - (size - budget)),
    );
  }
  return current;
}

interface Cuttable {
  path: (string | number)[];
  node: unknown[] | string;
  size: number;
}

/** The array or string with the largest serialized size (an iterative walk: any depth). */
function largestCuttable(root: unknown): Cuttable | undefined {
  let best: Cuttable | undefined;
  const stack: Array<{ node: unknown; path: (string | number)[] }> = [{ node: root, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    // An array of one is not cut (that would drop it whole): the walk goes into its element.
    const cuttable = (typeof node === "string" && node.length > 16) ||
      (Array.isArray(node) && node.length > 1);
    if (cuttable) {
      const size = jsonBytes(node);
      if (!best || size > best.size) best = { path, node: node as unknown[] | string, size };
    }
    if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        stack.push({ node: child, path: [...path, Array.isArray(node) ? Number(key) : key] });
      }
    }
  }
  return best;
}

/** A shorter array (whole elements from the end go) or string, aiming at `target` bytes. */
function cutNode(node: unknown[] | string, target: number): unknown[] | string {
  if (typeof node === "string") return cutString(node, Math.max(0, target), "…");
  let size = 2 + jsonBytes(node[0]);
  let keep = 1;
  while (keep < node.length - 1) {
    const next = jsonBytes(node[keep]) + 1;
    if (size + next > target) break;
    size += next;
    keep++;
  }
  // Always shorter, and never empty: a first element over the target is cut in a later pass.
  return node.slice(0, keep);
}

function replaceAt<T>(root: T, path: (string | number)[], replacement: unknown): T {
  if (path.length === 0) return replacement as T;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = replaceAt(copy[head as number], rest, replacement);
    return copy as T;
  }
  const copy = { ...(root as Record<string, unknown>) };
  copy[head as string] = replaceAt(copy[head as string], rest, replacement);
  return copy as T;
}

/**
 * The longest prefix of a string whose JSON form is at most `budget` bytes,
 * plus a marker (a cut never splits a surrogate pair).
 */
function cutString(text: string, budget: number, marker = "\n[cut]"): string {
  let low = 0;
  let high = Math.min(text.length, budget);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, mid)) + utf8Bytes(marker) <= budget) low = mid;
    else high = mid - 1;
  }
  let end = low;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}${marker}`;
}

const ENCODER = new TextEncoder();

function utf8Bytes(text: string): number {
  // Cheaper than encoding when the text is ASCII, which most replies are.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) return ENCODER.encode(text).length;
  }
  return text.length;
}
