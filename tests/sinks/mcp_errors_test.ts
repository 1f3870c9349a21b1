/**
 * The two SDK error codes `sinks/mcp_errors.ts` keeps as numbers are the
 * SDK's own, and errors are told apart by them.
 */

import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertFalse } from "../_assert.ts";
import { isConnectionLoss, isTimeout, SDK_CODES } from "../../sinks/mcp_errors.ts";

Deno.test("mcp_errors: the codes are the SDK's, and a closed connection and a timeout are told apart", () => {
  assertEquals(SDK_CODES.connectionClosed, ErrorCode.ConnectionClosed);
  assertEquals(SDK_CODES.requestTimeout, ErrorCode.RequestTimeout);
  const closed = new McpError(ErrorCode.ConnectionClosed, "Connection closed");
  const late = new McpError(ErrorCode.RequestTimeout, "Request timed out");
  assert(isConnectionLoss(closed));
  assertFalse(isTimeout(closed));
  assert(isTimeout(late));
  assertFalse(isConnectionLoss(late));
  assert(isConnectionLoss(new Error("Not connected")));
  assertFalse(isConnectionLoss(new McpError(ErrorCode.InternalError, "boom")));
});
