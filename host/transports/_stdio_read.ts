/**
 * Stdio's input, from bytes to JSON values, for `LineTransport`
 * (`stdio.ts`): chunks split at newlines into lines gathered up to a bound
 * (`_lines.ts`), the next read only after a turn of the event loop, and
 * each line checked before it is parsed. A line over the bound, too deeply
 * nested, or not JSON is a refusal for the transport to answer (with the id
 * it showed, if any); a blank line is skipped; every other line is handed
 * on as a JSON value, which the transport checks is JSON-RPC.
 *
 * @module
 */

import { ProtocolErrorCode, type RequestId } from "@modelcontextprotocol/server";
import { setImmediate } from "node:timers";
import {
  type ChunkSource,
  type FinishedLine,
  idIn,
  LineAccumulator,
  nestingDepth,
} from "./_lines.ts";

/** The deepest nesting of arrays and objects a message may have. */
export const MAX_MESSAGE_DEPTH = 128;

const NEWLINE = 0x0a;

/** Options for {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** The largest line read, in bytes. */
  maxMessageBytes: number;
  /** Told of each line that parsed as JSON, with its value. */
  onJson: (json: unknown) => void;
  /** Told of each line refused: the id it showed (or `null`), a JSON-RPC error code, and why. */
  onRefusal: (id: RequestId | null, code: number, message: string) => void;
}

/**
 * Read a source to its end, telling of each line as it is read.
 *
 * @param source Where the bytes come from.
 * @param options The bound, and who is told of each line.
 * @returns Resolves when the source ends.
 * @throws What the source's reads throw, and what the callbacks throw.
 */
export async function readLines(source: ChunkSource, options: ReadLinesOptions): Promise<void> {
  const line = new LineAccumulator(options.maxMessageBytes);
  for (;;) {
    const chunk = await source.read();
    if (chunk === null) return;
    take(chunk, line, options);
    // The next read only after this turn: starting one (Deno hands each to a blocking thread)
    // took 25-30 µs, which a call answered in this turn would otherwise wait for before its
    // reply went out; now it goes while the client reads the reply.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function take(chunk: Uint8Array, line: LineAccumulator, options: ReadLinesOptions): void {
  let start = 0;
  for (;;) {
    const newline = chunk.indexOf(NEWLINE, start);
    if (newline === -1) {
      // The rest of a line read on: kept as a copy, the chunk's buffer is read into again.
      line.append(chunk.slice(start));
      return;
    }
    line.append(chunk.subarray(start, newline));
    handle(line.finish(), options);
    start = newline + 1;
  }
}

function handle(line: FinishedLine, options: ReadLinesOptions): void {
  if (line.kind === "over") {
    const why = `it is ${line.bytes} bytes, over the limit of ${options.maxMessageBytes}`;
    options.onRefusal(
      line.id,
      ProtocolErrorCode.InvalidRequest,
      `Cannot read the request: ${why}; send less`,
    );
    return;
  }
  const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
  if (text.trim() === "") return;
  const depth = nestingDepth(text);
  if (depth > MAX_MESSAGE_DEPTH) {
    const why = `it is nested ${depth} levels deep, over the limit of ${MAX_MESSAGE_DEPTH}`;
    options.onRefusal(
      idIn(text),
      ProtocolErrorCode.InvalidRequest,
      `Cannot read the request: ${why}`,
    );
    return;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    options.onRefusal(
      null,
      ProtocolErrorCode.ParseError,
      "Cannot parse the request: it is not JSON",
    );
    return;
  }
  options.onJson(json);
}
