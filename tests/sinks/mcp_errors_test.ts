/**
 * The SDK error codes `sinks/mcp_errors.ts` keeps as strings are the
 * SDK's own, and errors are told apart by them.
 */

import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { assert, assertEquals, assertFalse } from "../_assert.ts";
import { isConnectionLoss, isTimeout, SDK_CODES } from "../../sinks/mcp_errors.ts";

Deno.test("mcp_errors: the codes are the SDK's, and a closed connection and a timeout are told apart", () => {
  assertEquals(SDK_CODES.connectionClosed, SdkErrorCode.ConnectionClosed);
  assertEquals(SDK_CODES.requestTimeout, SdkErrorCode.RequestTimeout);
  const closed = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
  const late = new SdkError(SdkErrorCode.RequestTimeout, "Request timed out");
  assert(isConnectionLoss(closed));
  assertFalse(isTimeout(closed));
  assert(isTimeout(late));
  assertFalse(isConnectionLoss(late));
  assert(isConnectionLoss(new Error("Not connected")));
  assertFalse(isConnectionLoss(new ProtocolError(ProtocolErrorCode.InternalError, "boom")));
});
