/**
 * The network: the worker `fetch_url` and `web_search` reach the web
 * through, under the egress policy, and the service the tools call.
 *
 * @module
 */

export { NetworkService, statusOf as networkStatus } from "./network.ts";
export { whyNoWorker, workerCommand } from "./_process.ts";
