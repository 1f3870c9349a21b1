/**
 * The MCP edge: the server that lists the host's tools and runs calls, and
 * the transports it is served over, one file each (stdio, Streamable HTTP). Other folders
 * import from here.
 *
 * @module
 */

export {
  createGateway,
  type GatewayOptions,
  instructions,
  serve,
  type ServeOptions,
  SERVER_INFO,
} from "./server.ts";
export { type HttpServeOptions, type HttpServing, MCP_PATH, serveHttp } from "./http.ts";
export type { GatewayExtras, MessageTransport } from "./extras.ts";
export { LineTransport, type LineTransportOptions, MAX_MESSAGE_DEPTH } from "./stdio.ts";
export { Inflight } from "./_inflight.ts";
export { HttpGuard, type HttpGuardOptions, refusal } from "./_http_guard.ts";
