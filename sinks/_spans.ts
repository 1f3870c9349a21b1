/**
 * Spans of text replaced with `[redacted]`, for the redactor (`redact.ts`):
 * where a check replaced parts of a string, found again from what it made
 * of it, and a string with spans replaced.
 *
 * @module
 */

import { REDACTED } from "./_secret_shapes.ts";

/** A part of a string: `[start, end)`. */
export type Span = readonly [start: number, end: number];

/**
 * Where a check replaced parts of `before` with `[redacted]` to give
 * `after`, in `before`'s indices. Each part lies between the kept pieces
 * around it; where a piece could sit in more than one place, the span runs
 * from its earliest possible end to the next piece's latest possible start,
 * so that it always covers the part replaced. When `after` is not `before`
 * with parts replaced (a check rewrote it), the one span from the first
 * difference to the last.
 *
 * @param before The text checked.
 * @param after What the check made of it.
 * @returns The spans replaced, in order.
 */
export function replacedSpans(before: string, after: string): Span[] {
  if (before === after) return [];
  const pieces = after.split(REDACTED);
  const last = pieces.length - 1;
  const ends = [pieces[0]!.length];
  const starts: number[] = [];
  starts[last] = before.length - pieces[last]!.length;
  let aligned = last > 0 && before.startsWith(pieces[0]!) && before.endsWith(pieces[last]!);
  for (let k = 1; aligned && k < last; k++) {
    const at = before.indexOf(pieces[k]!, ends[k - 1]);
    ends[k] = at + pieces[k]!.length;
    aligned = at >= 0;
  }
  for (let k = last - 1; aligned && k >= 1; k--) {
    const from = starts[k + 1]! - pieces[k]!.length;
    starts[k] = from < 0 ? -1 : before.lastIndexOf(pieces[k]!, from);
    aligned = starts[k]! >= 0;
  }
  aligned &&= ends[last - 1]! <= starts[last]! && ends[0]! <= starts[1]!;
  if (!aligned) return [changedSpan(before, after)];
  const spans: Span[] = [];
  for (let k = 1; k <= last; k++) spans.push([ends[k - 1]!, starts[k]!]);
  return spans;
}

/** The span of `before` from the first character that differs in `after` to the last. */
function changedSpan(before: string, after: string): Span {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  const most = Math.min(before.length, after.length) - head;
  while (tail < most && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return [head, before.length - tail];
}

/**
 * Text with spans replaced by `[redacted]`, overlapping and touching spans
 * as one.
 *
 * @param text The text.
 * @param spans Spans of it, in any order.
 * @returns The text, each span (merged) replaced.
 */
export function withSpansRedacted(text: string, spans: readonly Span[]): string {
  const sorted = spans.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0]);
  if (sorted.length === 0) return text;
  let out = "";
  let at = 0;
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]![0];
    let end = sorted[i]![1];
    while (i + 1 < sorted.length && sorted[i + 1]![0] <= end) end = Math.max(end, sorted[++i]![1]);
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}
