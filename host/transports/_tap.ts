/**
 * Watching a connected transport's messages without changing them: what
 * came in (before the server sees it) and what goes out (before it is sent).
 *
 * @module
 */

import type { JSONRPCMessage, MessageExtraInfo, Transport } from "@modelcontextprotocol/server";

/** What a tap is told; both must return at once and never throw. */
export interface Tap {
  /** A message in, with what the transport knows of it (the HTTP request). */
  in(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void;
  /** A message out. */
  out(message: JSONRPCMessage): void;
}

/**
 * Tap a transport a server is connected to.
 *
 * @param transport The connected transport.
 * @param tap What is told of each message.
 * @returns A function that hands a message to the server as if it came in (untapped).
 */
export function tapTransport(
  transport: Transport,
  tap: Tap,
): (message: JSONRPCMessage) => void {
  const deliver = transport.onmessage!.bind(transport);
  transport.onmessage = (message, extra) => {
    tap.in(message, extra);
    deliver(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    tap.out(message);
    return send(message, options);
  };
  return (message) => deliver(message);
}
