/**
 * One request to an upstream server: a tool call that keeps the client's
 * `_meta`, its cancellation and its progress; the whole tool list, page by
 * page; how a failure reads to the model (from the SDK's error codes); and
 * the call's time, a phase of the client's call that telemetry shows.
 *
 * @module
 */

import {
  type CallToolResult,
  type Client,
  type Progress,
  ProtocolError,
  type Tool as McpTool,
} from "@modelcontextprotocol/client";
import { isConnectionLoss, isTimeout } from "../../sinks/mcp_errors.ts";
import { errorResult } from "../../tools/registry.ts";
import type { ToolResult } from "../../tools/tool.ts";
import type { CallContext, ProviderResult } from "./dispatcher.ts";

/** The name of an upstream call's phase (a child span of the client's call). */
export const UPSTREAM_PHASE = "toolhost.upstream.call";

/**
 * Call a tool of an upstream server.
 *
 * @param client The connected client.
 * @param name The tool's own name on that server.
 * @param args The raw arguments.
 * @param ctx Cancellation, progress and the client's `_meta`.
 * @param timeoutMs How long the server may stay silent (progress restarts the clock).
 * @returns The server's result, unchanged.
 * @throws What the SDK throws: a timeout, a lost connection, a cancellation, the server's error.
 */
export async function callUpstream(
  client: Client,
  name: string,
  args: unknown,
  ctx: CallContext,
  timeoutMs: number,
): Promise<ToolResult> {
  // The SDK adds its own progress token; the rest of the client's _meta passes through.
  const { progressToken: _token, ...meta } = ctx.meta ?? {};
  const params: {
    name: string;
    arguments: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  } = { name, arguments: (args ?? {}) as Record<string, unknown> };
  if (Object.keys(meta).length > 0) params._meta = meta;
  const onProgress = ctx.onProgress;
  const result = await client.callTool(params, {
    timeout: timeoutMs,
    resetTimeoutOnProgress: true,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(onProgress
      ? {
        onprogress: (p: Progress) => onProgress(p.progress, p.total, p.message),
      }
      : {}),
  });
  return result as CallToolResult as ToolResult;
}

/** What {@linkcode failureResult} needs to know of the call. */
export interface FailureContext {
  /** The server's name. */
  server: string;
  /** Its call timeout. */
  timeoutMs: number;
  /** Whether the client cancelled the call. */
  cancelled: boolean;
}

/**
 * A failed upstream call as the model reads it: `cancelled`, `timeout`, or
 * `upstream_error` (the server stopped, or said why).
 *
 * @param tool The tool's name as clients see it (`<server>__<tool>`).
 * @param error What the call threw.
 * @param context The server, its timeout, whether the client cancelled.
 * @returns The error result.
 */
export function failureResult(tool: string, error: unknown, context: FailureContext): ToolResult {
  if (context.cancelled) return errorResult("cancelled", `${tool} was cancelled`);
  if (isTimeout(error)) {
    return errorResult("timeout", `${tool} did not answer within ${context.timeoutMs / 1000} s`);
  }
  if (isConnectionLoss(error)) {
    return errorResult(
      "upstream_error",
      `The upstream server "${context.server}" stopped during the call (it is being restarted); call again`,
    );
  }
  return errorResult("upstream_error", `${tool} failed: ${errorMessage(error).slice(0, 500)}`);
}

/**
 * What an error says: the server's own error with its code first (`MCP error -32603: …`), as
 * the v1 SDK's `McpError` read, so that a reply reads the same whichever SDK carried it.
 */
function errorMessage(error: unknown): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Every tool a server lists, following its pages (the SDK walks them when no cursor is given;
 * the client is made without a cap on their number).
 *
 * @param client The connected client.
 * @returns The tools.
 */
export async function listAllTools(client: Client): Promise<McpTool[]> {
  return (await client.listTools()).tools;
}

/**
 * The first line of an error's message, at most 300 characters.
 *
 * @param error What was thrown.
 * @returns The line.
 */
export function describeError(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}

/**
 * Time an upstream call from now: the phase it adds to its result says which server and tool,
 * and whether it failed (`tool_error`), never its arguments.
 *
 * @param server The server's name.
 * @param tool The tool's own name on that server.
 * @returns What adds the phase to the call's result when it is known.
 */
export function upstreamTiming(
  server: string,
  tool: string,
): (out: ProviderResult) => ProviderResult {
  const start = performance.timeOrigin + performance.now();
  return (out) => {
    const attributes = {
      "toolhost.upstream.server": server,
      "gen_ai.tool.name": tool,
      ...(out.result.isError ? { "error.type": "tool_error" } : {}),
    };
    const end = performance.timeOrigin + performance.now();
    return { ...out, phases: [{ name: UPSTREAM_PHASE, start, end, attributes }] };
  };
}
