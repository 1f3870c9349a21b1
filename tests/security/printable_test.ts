/**
 * security/printable.ts: every class of character a terminal acts on or a
 * reader cannot see is shown escaped, checked against hand-written
 * expectations and against V8's own Unicode tables (`\p{Cc}`,
 * `\p{Bidi_Control}`); the page copy of the functions runs alone.
 */

import { assert, assertEquals, assertFalse } from "../_assert.ts";
import { printable, PRINTABLE_SCRIPT, printableJson } from "../../security/printable.ts";

/** Characters no output may hold raw: controls (C0, DEL, C1), bidi controls, lone surrogates. */
const RAW_UNSAFE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]|\p{Cs}/u;

/** Input, and what it is shown as with the defaults, written out by hand. */
const CASES: Array<[string, string, string]> = [
  ["plain text", "src/main.ts: ok — ünïcödé 日本 🎉", "src/main.ts: ok — ünïcödé 日本 🎉"],
  ["ESC and BEL by name", "\x1b]0;pwned\x07", "\\e]0;pwned\\a"],
  ["CR, LF, TAB by name", "a\rb\nc\td", "a\\rb\\nc\\td"],
  [
    "other C0 controls as code points",
    "\0\x01\x08\x0b\x0c\x1f",
    "\\u{00}\\u{01}\\u{08}\\u{0B}\\u{0C}\\u{1F}",
  ],
  ["DEL", "a\x7fb", "a\\u{7F}b"],
  [
    "C1 controls (CSI, OSC, NEL)",
    "\x80\x85\x9b2J\x9d\x9f",
    "\\u{80}\\u{85}\\u{9B}2J\\u{9D}\\u{9F}",
  ],
  ["backslash doubled", "C:\\dir\\e", "C:\\\\dir\\\\e"],
  [
    "bidi controls",
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    "\\u{61C}\\u{200E}\\u{200F}\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}\\u{2066}\\u{2067}\\u{2068}\\u{2069}",
  ],
  ["line and paragraph separators", "a\u2028b\u2029", "a\\u{2028}b\\u{2029}"],
  ["lone surrogates", "x\ud800y\udfffz", "x\\u{D800}y\\u{DFFF}z"],
  ["a pair is a character", "\ud83d\ude00", "\u{1F600}"],
  ["printable neighbours stay", " ~\xa0\xff\u200d\u2030", " ~\xa0\xff\u200d\u2030"],
];

/** The escapes undone, written here (not in the module): proves nothing is ambiguous. */
function unescape(text: string): string {
  const names: Record<string, string> = { e: "\x1b", a: "\x07", r: "\r", n: "\n", t: "\t" };
  return text.replace(/\\(?:u\{([0-9A-F]+)\}|(.))/g, (_, hex: string | undefined, c: string) => {
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    if (c === "\\") return "\\";
    const named = names[c];
    if (named === undefined) throw new Error(`Not an escape: \\${c}`);
    return named;
  });
}

Deno.test("printable shows each class of control character escaped", async (t) => {
  for (const [name, input, shown] of CASES) {
    await t.step(name, () => assertEquals(printable(input), shown));
  }
});

Deno.test("printable keeps line feeds and tabs only where the caller asks", () => {
  const text = "a\tb\nc\r\x1b";
  assertEquals(printable(text, { keepNewlines: true }), "a\\tb\nc\\r\\e");
  assertEquals(printable(text, { keepTabs: true }), "a\tb\\nc\\r\\e");
  assertEquals(printable(text, { keepNewlines: true, keepTabs: true }), "a\tb\nc\\r\\e");
});

Deno.test("printable leaves no control, bidi control or lone surrogate raw, and can be undone", () => {
  // Every BMP code unit, alone and between others.
  for (let code = 0; code <= 0xffff; code++) {
    const text = `a${String.fromCharCode(code)}\\b`;
    const shown = printable(text);
    assertFalse(
      RAW_UNSAFE.test(shown),
      `U+${code.toString(16)} left raw: ${JSON.stringify(shown)}`,
    );
    assertEquals(unescape(shown), text, `U+${code.toString(16)} round trip`);
    if (!RAW_UNSAFE.test(String.fromCharCode(code)) && code !== 0x5c) {
      assertEquals(shown, `a${String.fromCharCode(code)}\\\\b`, `U+${code.toString(16)} kept`);
    }
  }
});

Deno.test("printable's output is ASCII-safe for a terminal: no ESC or BEL byte once encoded", () => {
  const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;aGk=\x07\x9b31m\ud800";
  const bytes = new TextEncoder().encode(printable(hostile));
  assertFalse(bytes.includes(0x1b));
  assertFalse(bytes.includes(0x07));
  assertFalse(bytes.includes(0xc2), "no C1 control's UTF-8 lead byte");
});

Deno.test("printableJson keeps the JSON's value and leaves nothing unsafe raw", () => {
  const value = {
    "key\u202e": ["\x1b[2J", "\x7f\x85\x9b", "a\u2066b\u2069", "C:\\dir", "\ud800", "日本"],
  };
  for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
    const shown = printableJson(json);
    assertFalse(RAW_UNSAFE.test(shown.replace(/[\n ]/g, "")), shown);
    assertEquals(JSON.parse(shown), value);
  }
  assertEquals(printableJson('"a\u202eb\x9b"'), '"a\\u202eb\\u009b"');
  assertEquals(printableJson('{\n\t"a": "\\\\"\n}'), '{\n\t"a": "\\\\"\n}');
});

Deno.test("the page copy of printable runs alone and shows the same text", () => {
  const page = new Function(
    `"use strict";\n${PRINTABLE_SCRIPT}\nreturn { printable, printableJson };`,
  )();
  for (const [name, input, shown] of CASES) assertEquals(page.printable(input), shown, name);
  assertEquals(page.printable("a\nb\tc", { keepNewlines: true }), "a\nb\\tc");
  assertEquals(page.printableJson('"a\u202eb\x9b"'), '"a\\u202eb\\u009b"');
  assert(!/\bimport\b|\bexport\b/.test(PRINTABLE_SCRIPT), "no module syntax in a classic script");
});
