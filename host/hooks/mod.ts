/**
 * The Hook API and the dashboard (seed 001's hook server, in this host's
 * terms), and the typed client of that API.
 *
 * @module
 */

export { type DecisionOptions, HookClient, type HookClientOptions, HookError } from "./client.ts";
export { type HooksOptions, type HooksServing, serveHooks } from "./server.ts";
export { ASK_TIMEOUT_MS } from "./asks.ts";
