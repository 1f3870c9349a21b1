/**
 * How this served process was launched, for the start-up line and
 * `get_host_performance`: from its launch record (`bin/toolhost start` ran
 * the line the launcher worked out last time), or by the launcher — and
 * then whether that line was recorded for the next start, or why not. The
 * script or the launcher says so in {@linkcode LAUNCH_ENV}; a process
 * started otherwise (`toolhost serve`, a test's own host) says nothing.
 *
 * @module
 */

import type { LaunchStatus } from "../tools/observe/observation.ts";

/** The variable that says how the served process was launched. */
export const LAUNCH_ENV = "TOOLHOST_LAUNCH";

/**
 * The value the launcher gives {@linkcode LAUNCH_ENV}.
 *
 * @param notRecorded Why no record was kept, or `null` when one was.
 * @returns The value.
 */
export function launcherValue(notRecorded: string | null): string {
  return notRecorded === null ? "launcher: recorded" : `launcher: not recorded: ${notRecorded}`;
}

/**
 * How this process was launched, from {@linkcode LAUNCH_ENV}.
 *
 * @returns The status (`unknown` when the variable is missing, unreadable or not ours).
 */
export function launchStatus(): LaunchStatus {
  let value: string | undefined;
  try {
    value = Deno.env.get(LAUNCH_ENV);
  } catch {
    // Not granted (a host started without the scoped flags): nothing is known.
  }
  if (value === "record") return { from: "record" };
  if (value === "launcher: recorded") return { from: "launcher", recorded: true };
  const reason = value?.match(/^launcher: not recorded: (.+)$/)?.[1];
  if (reason !== undefined) return { from: "launcher", recorded: false, reason };
  return { from: "unknown" };
}
