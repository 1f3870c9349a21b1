/**
 * What went wrong with a request to an MCP peer, from the SDK's error codes
 * rather than its messages: the connection is gone, or the request timed out.
 *
 * @module
 */

import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

/**
 * Whether a request failed because the connection is gone: the SDK's
 * `ConnectionClosed`, a request on a client with no transport (the SDK's
 * plain `Error("Not connected")`), or a write into a closed pipe.
 *
 * @param error What the request threw.
 * @returns True when reconnecting could help.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ("code" in error) return error.code === ErrorCode.ConnectionClosed || error.code === "EPIPE";
  return error.message === "Not connected";
}

/**
 * Whether a request failed because it was not answered in time (the SDK's
 * `RequestTimeout`).
 *
 * @param error What the request threw.
 * @returns True for a timeout.
 */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === ErrorCode.RequestTimeout;
}
