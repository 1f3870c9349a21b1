/**
 * The contract of extra surface a gateway serves next to the host's tools
 * and anchors: the MCP conformance suite's fixtures, served only under
 * `--conformance-fixtures`.
 *
 * @module
 */

import type {
  CallToolResult,
  ReadResourceResult,
  Resource,
  Server,
  ServerContext,
  Tool,
} from "@modelcontextprotocol/server";

/**
 * A two-way channel of JSON-RPC messages that {@linkcode serve} can serve
 * over instead of stdio: the shape of the MCP SDK's `Transport`, named here
 * so that the host's public signatures carry no SDK type.
 */
export interface MessageTransport {
  /** Start reading; messages go to {@linkcode MessageTransport.onmessage}. */
  start(): Promise<void>;
  /**
   * Send one message.
   *
   * @param message A JSON-RPC message.
   * @param options The SDK's send options.
   * @returns Resolves when it is written.
   */
  send(message: object, options?: object): Promise<void>;
  /** Close the channel; {@linkcode MessageTransport.onclose} follows. */
  close(): Promise<void>;
  /** Called once the channel is closed. */
  onclose?: (() => void) | undefined;
  /** Called on an error that does not close the channel. */
  onerror?: ((error: Error) => void) | undefined;
  /** Called with each message read. */
  onmessage?: ((message: object, extra?: object) => void) | undefined;
  /** The session this channel belongs to, if any. */
  sessionId?: string | undefined;
}

/** Extra tools, resources and handlers for one gateway (one MCP server instance). */
export interface GatewayExtras {
  /** Tools listed after the host's. */
  readonly tools: readonly Tool[];
  /**
   * Answer a call to one of {@linkcode GatewayExtras.tools}.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param ctx The SDK's request context (progress, logging, client requests).
   * @returns The result.
   */
  call(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult>;
  /** Resources listed after the anchors. */
  readonly resources: readonly Resource[];
  /**
   * Read a resource.
   *
   * @param uri The resource.
   * @returns Its contents, or `undefined` when the URI is not one of the extras'.
   */
  read(uri: string): ReadResourceResult | undefined;
  /**
   * Register every other handler (prompts, resource templates, completion)
   * and the capabilities they need, on a server the gateway has made.
   *
   * @param server The SDK server, before it connects.
   */
  install(server: Server): void;
}
