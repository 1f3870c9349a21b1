/**
 * `status_changed` events: the sinks' and upstream servers' state, looked
 * at every few seconds while the Hook API runs, an event when it changed.
 *
 * @module
 */

import type { Host } from "../host.ts";

/** How often the state is looked at. */
const EVERY_MS = 2000;

/**
 * Watch the host's sinks and upstream servers.
 *
 * @param host The host.
 * @returns A function that stops watching.
 */
export function watchStatus(host: Host): () => void {
  let last = "";
  const look = () => {
    const { efferent_copy, upstreams } = host.status();
    const now = JSON.stringify({ efferent_copy, upstreams });
    if (now !== last) host.events.emit("status_changed", { efferent_copy, upstreams });
    last = now;
  };
  look();
  const timer = setInterval(look, EVERY_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
