/**
 * The MCP edge: the server that lists the host's tools and runs calls, and
 * the transports it is served over, one file each (stdio). Other folders
 * import from here.
 *
 * @module
 */

export { createGateway, instructions, serve, SERVER_INFO } from "./server.ts";
export { LineTransport, type LineTransportOptions, MAX_MESSAGE_DEPTH } from "./stdio.ts";
