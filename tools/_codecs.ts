/**
 * PEP 263 for Python files: the `# -*- coding: NAME -*-` comment on line 1
 * or 2 names the file's encoding; Python's codec names are mapped to the
 * WHATWG encodings `TextDecoder` knows. Files in a single-byte codec are
 * written back in it (a reverse table from decoding its 256 bytes); a
 * multi-byte legacy codec (Shift_JIS, EUC-JP, GBK, Big5, EUC-KR…) is
 * decoded for display, and writing it is refused.
 *
 * @module
 */

import { ToolError } from "../security/errors.ts";

/** The single-byte legacy encodings (WHATWG names) a Python file may declare. */
export const SINGLE_BYTE = [
  "ibm866",
  "iso-8859-2",
  "iso-8859-3",
  "iso-8859-4",
  "iso-8859-5",
  "iso-8859-6",
  "iso-8859-7",
  "iso-8859-8",
  "iso-8859-10",
  "iso-8859-13",
  "iso-8859-14",
  "iso-8859-15",
  "iso-8859-16",
  "koi8-r",
  "koi8-u",
  "macintosh",
  "windows-874",
  "windows-1250",
  "windows-1251",
  "windows-1252",
  "windows-1253",
  "windows-1254",
  "windows-1255",
  "windows-1256",
  "windows-1257",
  "windows-1258",
  "x-mac-cyrillic",
] as const;

/** The multi-byte legacy encodings (WHATWG names): shown, not written. */
export const MULTI_BYTE = [
  "shift_jis",
  "euc-jp",
  "iso-2022-jp",
  "gbk",
  "gb18030",
  "big5",
  "euc-kr",
] as const;

/** A legacy encoding a Python file may declare, by its WHATWG name (`koi8-r`, `windows-1251`, `shift_jis`). */
export type LegacyEncoding = typeof SINGLE_BYTE[number] | typeof MULTI_BYTE[number];

/** What a declared coding reads as: UTF-8, Latin-1 byte for byte, or a legacy encoding. */
export type DeclaredEncoding = "utf-8" | "latin1" | LegacyEncoding;

const LEGACY = new Set<string>([...SINGLE_BYTE, ...MULTI_BYTE]);

/** Python spellings `TextDecoder` does not know, normalized (lower case, `-` for `_`). */
const PYTHON_ALIASES: Readonly<Record<string, string>> = {
  "cp932": "shift_jis",
  "ms-kanji": "shift_jis",
  "mskanji": "shift_jis",
  "cp936": "gbk",
  "ms936": "gbk",
  "936": "gbk",
  "euccn": "gbk",
  "euc-cn": "gbk",
  "cp949": "euc-kr",
  "ms949": "euc-kr",
  "uhc": "euc-kr",
  "cp950": "big5",
  "ms950": "big5",
  "big5hkscs": "big5",
  "ujis": "euc-jp",
  "u-jis": "euc-jp",
  "cp874": "windows-874",
  "mac-roman": "macintosh",
  "macroman": "macintosh",
  "mac-cyrillic": "x-mac-cyrillic",
  "maccyrillic": "x-mac-cyrillic",
  "latin7": "iso-8859-13",
  "l7": "iso-8859-13",
  "latin8": "iso-8859-14",
  "l8": "iso-8859-14",
  "latin9": "iso-8859-15",
  "latin10": "iso-8859-16",
  "l10": "iso-8859-16",
};

/** Python's names for UTF-8 and ASCII (read as UTF-8) and for Latin-1, normalized. */
const UTF8_NAMES = /^(?:utf-?8(?:-.*)?|u8|utf|cp65001|ascii|us-ascii|646|us)$/;
const LATIN1_NAMES =
  /^(?:latin-?1(?:-.*)?|iso-?8859-1(?:-.*)?|iso-latin-1(?:-.*)?|8859|cp819|l1|latin|iso-ir-100|csisolatin1)$/;

/** The PEP 263 comment (`coding[:=]\s*([-\w.]+)` in a comment line). */
const CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/**
 * The coding a Python source declares: a `coding[:=]` comment on line 1, or
 * on line 2 when line 1 is blank or a comment (as CPython's tokenizer reads it).
 *
 * @param source The file's first bytes (read as Latin-1) or its text.
 * @returns The name as written, or undefined when none is declared.
 */
export function declaredCoding(source: Uint8Array | string): string | undefined {
  const head = typeof source === "string"
    ? source.slice(0, 512)
    : String.fromCharCode(...source.subarray(0, 512));
  const [first = "", second = ""] = head.split(/\r\n|\r|\n/, 2);
  const found = CODING.exec(first) ??
    (/^[ \t\f]*(?:#.*)?$/.test(first) ? CODING.exec(second) : null);
  return found?.[1];
}

/**
 * The encoding a declared Python codec name reads as.
 *
 * @param name The name as declared (`koi8-r`, `latin_1`, `cp1251`, `utf8`).
 * @returns The encoding, or undefined for a codec toolhost does not know.
 */
export function codecFor(name: string): DeclaredEncoding | undefined {
  const normal = name.toLowerCase().replaceAll("_", "-");
  if (UTF8_NAMES.test(normal)) return "utf-8";
  if (LATIN1_NAMES.test(normal)) return "latin1";
  const label = PYTHON_ALIASES[normal] ?? normal;
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return undefined; // not a label TextDecoder knows: an unknown codec, which the caller reports
  }
  return isLegacy(encoding) ? encoding : undefined;
}

/**
 * Decode bytes in a legacy encoding, strictly.
 *
 * @param bytes The bytes (no BOM).
 * @param encoding The encoding.
 * @returns The text, or undefined when the bytes are not valid in it.
 */
export function decodeLegacy(bytes: Uint8Array, encoding: LegacyEncoding): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined; // invalid in this encoding: the caller falls back and says so
  }
}

/**
 * Encode text in a single-byte legacy encoding, with a reverse table built
 * by decoding each of its 256 bytes.
 *
 * @param text The text.
 * @param encoding The encoding.
 * @returns The bytes.
 * @throws {ToolError} `invalid_argument` when the encoding cannot hold a
 * character; `unsupported` for a multi-byte encoding.
 */
export function encodeLegacy(text: string, encoding: LegacyEncoding): Uint8Array {
  if (!(SINGLE_BYTE as readonly string[]).includes(encoding)) {
    throw new ToolError(
      "unsupported",
      `Cannot write text in ${encoding}: files in multi-byte legacy codings are shown but not edited; convert the file to UTF-8 first`,
    );
  }
  const decoder = new TextDecoder(encoding);
  const table = new Map<string, number>();
  for (let byte = 0; byte < 256; byte++) {
    const char = decoder.decode(Uint8Array.of(byte));
    if (char !== "\uFFFD") table.set(char, byte);
  }
  const out = new Uint8Array(text.length);
  let length = 0;
  for (const char of text) {
    const byte = table.get(char);
    if (byte === undefined) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      throw new ToolError(
        "invalid_argument",
        `Cannot write "${char}" (U+${code}): the file's coding is ${encoding}, which cannot hold it`,
      );
    }
    out[length++] = byte;
  }
  return out.subarray(0, length);
}

/**
 * Whether an encoding name is one of the legacy encodings.
 *
 * @param encoding A WHATWG encoding name.
 * @returns True for a {@linkcode LegacyEncoding}.
 */
export function isLegacy(encoding: string): encoding is LegacyEncoding {
  return LEGACY.has(encoding);
}
