/**
 * What went wrong with a request to an MCP peer, from the SDK's error codes
 * rather than its messages: the connection is gone, or the request timed out.
 *
 * @module
 */

/**
 * The SDK's codes for a closed connection, a request on a client with no
 * transport, and an unanswered request (its `SdkErrorCode.ConnectionClosed`,
 * `NotConnected` and `RequestTimeout`), as strings: importing its types
 * would load every schema of the protocol into a process that only
 * compares a few codes (`tests/sinks/mcp_errors_test.ts` holds them equal
 * to the SDK's).
 */
export const SDK_CODES = Object.freeze({
  connectionClosed: "CONNECTION_CLOSED",
  notConnected: "NOT_CONNECTED",
  requestTimeout: "REQUEST_TIMEOUT",
});

/**
 * Whether a request failed because the connection is gone: the SDK's
 * `ConnectionClosed`, a request on a client with no transport (the SDK's
 * `NotConnected`, or its plain `Error("Not connected")`), or a write into a
 * closed pipe.
 *
 * @param error What the request threw.
 * @returns True when reconnecting could help.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ("code" in error) {
    return error.code === SDK_CODES.connectionClosed || error.code === SDK_CODES.notConnected ||
      error.code === "EPIPE";
  }
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
  return error instanceof Error && "code" in error && error.code === SDK_CODES.requestTimeout;
}
