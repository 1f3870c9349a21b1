/**
 * The interaction log's counts in words: what a read skipped, what the
 * size caps dropped, and byte counts for people.
 *
 * @module
 */

import type { DroppedCalls, SkippedLines } from "../interactions.ts";

/**
 * What a read of the log skipped, as a phrase.
 *
 * @param skipped The counts.
 * @returns E.g. `3 log lines skipped (2 corrupt or torn, 1 too long to read)`, or undefined.
 */
export function skippedPhrase(skipped: SkippedLines): string | undefined {
  const lines = skipped.malformed + skipped.too_long;
  const parts: string[] = [];
  if (lines > 0) {
    const why = [
      ...(skipped.malformed ? [`${skipped.malformed} corrupt or torn`] : []),
      ...(skipped.too_long ? [`${skipped.too_long} too long to read`] : []),
    ];
    parts.push(`${plural(lines, "log line")} skipped (${why.join(", ")})`);
  }
  if (skipped.unreadable > 0) {
    parts.push(`${plural(skipped.unreadable, "log file")} could not be read`);
  }
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * What the log's caps dropped, as a phrase.
 *
 * @param dropped The drops.
 * @returns E.g. `120 dropped by the log's size cap: 118 read-only, 2 failed, 0 writes; day cap`.
 */
export function droppedPhrase(dropped: DroppedCalls): string {
  const why = Object.keys(dropped.why).map((each) => each.replace("_", " ")).join(", ");
  return `${dropped.calls} dropped by the log's size cap: ${dropped.read} read-only, ${dropped.failed} failed, ${
    plural(dropped.write, "write")
  }${why ? `; ${why}` : ""}`;
}

/**
 * A byte count for people.
 *
 * @param bytes The count.
 * @returns E.g. `64 MiB`, `1.5 KiB`, `12 B`.
 */
export function byteSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
