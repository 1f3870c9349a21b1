/**
 * Percent-encoded text, for the redactor (`redact.ts`): the runs of a
 * string that may be encoded, and each run's decoded forms — decoded round
 * by round, with `+` also read as a space where it may be one — every
 * decoded character mapped back to the characters it came from.
 *
 * @module
 */

import type { Span } from "./_spans.ts";

export type { Span };

/** A decoded form of a run: its text, and where each of its characters came from. */
export interface Form {
  /** The decoded text. */
  text: string;
  /**
   * For each character of `text` (and its end), the index in the run where
   * it starts; `undefined` when the form is the run itself, char for char.
   */
  origin: Uint32Array | undefined;
}

/** Rounds of percent-decoding at most: `%25253D` is `=` after three. */
export const MAX_ROUNDS = 4;
/** UTF-16 units turned into a string at a time. */
const CHUNK = 8192;
/** Where a run of encoded text is: a `%XX` escape, or a `+` in a query after `?`. */
const HINT_SOURCE = /%[\dA-Fa-f]{2}|\?[^\s"'`<>?]*\+/.source;

/**
 * The runs of `text` that may hold encoded text: each a stretch without
 * space, quotes or angle brackets that holds a `%XX` escape or a `+` in a
 * URL query. Cheap when `text` has no `%` and no `?…+`.
 *
 * @param text Any text.
 * @returns The runs, in order, not overlapping.
 */
export function encodedRuns(text: string): Span[] {
  if (!text.includes("%") && !(text.includes("?") && text.includes("+"))) return [];
  const runs: Span[] = [];
  const hint = new RegExp(HINT_SOURCE, "g");
  for (let match = hint.exec(text); match; match = hint.exec(text)) {
    let start = match.index;
    while (start > 0 && runChar(text.charCodeAt(start - 1))) start--;
    let end = match.index + match[0].length;
    while (end < text.length && runChar(text.charCodeAt(end))) end++;
    runs.push([start, end]);
    hint.lastIndex = end;
  }
  return runs;
}

/** Whether a character can be part of an encoded run: not space, a quote or `<` `>`. */
function runChar(code: number): boolean {
  if (code <= 32 || code === 34 || code === 39 || code === 96 || code === 60 || code === 62) {
    return false;
  }
  return code < 127 || !/\s/.test(String.fromCharCode(code));
}

/**
 * A run's decoded forms: percent-decoded once, then again while escapes
 * remain (at most {@linkcode MAX_ROUNDS} rounds), and beside each form
 * that has a `+` the same form with `+` read as a space (the run itself
 * too, when it is a URL query).
 *
 * @param run A run from {@linkcode encodedRuns}.
 * @returns Its forms, the run itself not among them.
 */
export function decodedForms(run: string): Form[] {
  const forms: Form[] = [];
  const spaced = (form: Form) => {
    if (form.text.includes("+")) forms.push({ ...form, text: form.text.replace(/\+/g, " ") });
  };
  let form: Form = { text: run, origin: undefined };
  if (run.includes("?")) spaced(form);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = percentDecoded(form.text);
    if (next === undefined) break;
    const outer = form.origin;
    form = { text: next.text, origin: outer ? next.origin.map((at) => outer[at]!) : next.origin };
    forms.push(form);
    spaced(form);
  }
  return forms;
}

/**
 * Text percent-decoded once: each `%XX` escape, or UTF-8 sequence of them,
 * replaced by its character; an escape that is not valid UTF-8, and a `%`
 * not followed by two hex digits, kept as it is (never thrown on).
 *
 * @param text The text.
 * @returns The decoded text, each character's index in `text` (and its
 *   length last), or `undefined` when `text` has no escape to decode.
 */
export function percentDecoded(text: string): { text: string; origin: Uint32Array } | undefined {
  if (!text.includes("%")) return undefined;
  // Never longer than the text: each escape of 3 to 12 characters gives 1 or 2.
  const units = new Uint16Array(text.length);
  const origin = new Uint32Array(text.length + 1);
  let length = 0;
  for (let at = 0; at < text.length;) {
    const point = text.charCodeAt(at) === 37 ? utf8At(text, at) : -1;
    if (point < 0) {
      origin[length] = at;
      units[length++] = text.charCodeAt(at++);
      continue;
    }
    const char = String.fromCodePoint(point);
    for (let i = 0; i < char.length; i++) {
      origin[length] = at;
      units[length++] = char.charCodeAt(i);
    }
    at += 3 * utf8Length(point);
  }
  if (length === text.length) return undefined;
  origin[length] = text.length;
  return { text: fromUnits(units.subarray(0, length)), origin: origin.subarray(0, length + 1) };
}

/** A string of UTF-16 units, exactly (lone surrogates too). */
function fromUnits(units: Uint16Array): string {
  let out = "";
  for (let at = 0; at < units.length; at += CHUNK) {
    out += String.fromCharCode(...units.subarray(at, at + CHUNK));
  }
  return out;
}

/** The code point of the UTF-8 escapes at `at` (`%41`, `%C3%A9`), or -1 when they are not one. */
function utf8At(text: string, at: number): number {
  const lead = byteAt(text, at);
  if (lead < 0x80) return lead;
  const count = continuations(lead);
  if (count === 0) return -1;
  let point = lead & (0x3f >> count);
  for (let i = 1; i <= count; i++) {
    const next = byteAt(text, at + 3 * i);
    if (next < 0 || (next & 0xc0) !== 0x80) return -1;
    point = (point << 6) | (next & 0x3f);
  }
  const shortest = utf8Length(point) === count + 1;
  return shortest && point <= 0x10ffff && (point < 0xd800 || point > 0xdfff) ? point : -1;
}

/** How many bytes UTF-8 writes a code point in. */
function utf8Length(point: number): number {
  return point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
}

/** How many continuation bytes follow a UTF-8 lead byte; 0 for a byte that cannot lead. */
function continuations(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 1;
  if (lead >= 0xe0 && lead <= 0xef) return 2;
  return lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
}

/** The byte of a `%XX` escape at `at`, or -1 when there is none. */
function byteAt(text: string, at: number): number {
  if (text.charCodeAt(at) !== 37) return -1;
  const high = hexDigit(text.charCodeAt(at + 1));
  const low = hexDigit(text.charCodeAt(at + 2));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

/** A hex digit's value, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * A form's spans in the run it was decoded from.
 *
 * @param form The form.
 * @param spans Spans of its text.
 * @returns The spans of the run its characters came from.
 */
export function spansInRun(form: Form, spans: readonly Span[]): Span[] {
  const origin = form.origin;
  return origin ? spans.map(([start, end]) => [origin[start]!, origin[end]!] as const) : [...spans];
}
