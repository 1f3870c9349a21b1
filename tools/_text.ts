/**
 * Text files as tools see them: decoded once, with everything needed to write
 * them back byte for byte (encoding, BOM, line endings, final newline).
 * Encoding new text the same way is in `_text_encode.ts`.
 *
 * @module
 */

import { ToolError } from "../security/errors.ts";
import { formatBytes } from "../security/safe_fs.ts";
import type { Skipped } from "./_skipped.ts";
import type { ToolContext } from "./tool.ts";
import { codecFor, declaredCoding, decodeLegacy, type LegacyEncoding } from "./_codecs.ts";

export type { LegacyEncoding };

/**
 * An encoding toolhost can read and write back unchanged; a legacy one
 * (`koi8-r`, `windows-1251`…) only as a Python file's PEP 263 declaration.
 */
export type Encoding = "utf-8" | "utf-16le" | "utf-16be" | "latin1" | LegacyEncoding;

/** Python sources, whose encoding their PEP 263 `coding:` comment declares. */
const PYTHON_SOURCE = /\.py[iw]?$/i;

/** A decoded text file. */
export interface TextFile {
  /** The text without its BOM, line endings as in the file. */
  text: string;
  /** How it was encoded. */
  encoding: Encoding;
  /** Whether it began with a byte-order mark. */
  bom: boolean;
  /** The dominant line ending (`\n` when there is none). */
  eol: "\n" | "\r\n" | "\r";
  /**
   * For a Python file: the coding its PEP 263 comment declares (`""` when
   * none). Written back, the file follows its new text's declaration.
   */
  pep263?: string;
  /** How a declared coding could not be followed (unknown, or the bytes do not fit it). */
  note?: string;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Whether bytes look binary: a NUL byte in the first 8 KiB (ripgrep's and git's rule),
 * unless a UTF-16 BOM says otherwise.
 *
 * @param bytes The file's bytes.
 * @returns True for binary content.
 */
export function isBinary(bytes: Uint8Array): boolean {
  if (utf16Bom(bytes)) return false;
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * Decode a file's bytes.
 *
 * @param bytes The bytes.
 * @param display The path, for the error.
 * @returns The decoded file.
 * @throws {ToolError} `binary_file` for binary content.
 */
export function decodeText(bytes: Uint8Array, display: string): TextFile {
  const bom16 = utf16Bom(bytes);
  if (bom16) {
    const text = new TextDecoder(bom16, { ignoreBOM: true }).decode(bytes.subarray(2));
    return { text, encoding: bom16, bom: true, eol: detectEol(text) };
  }
  if (isBinary(bytes)) {
    throw new ToolError(
      "binary_file",
      `Cannot read "${display}" as text: it is a binary file (${
        describeBinary(bytes)
      }, ${bytes.length} bytes)`,
    );
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const python = PYTHON_SOURCE.test(display) ? pythonCoding(body, bom) : undefined;
  const declared = python
    ? { pep263: python.name, ...(python.note ? { note: python.note } : {}) }
    : {};
  if (python?.text !== undefined && python.encoding) {
    return {
      text: python.text,
      encoding: python.encoding,
      bom,
      eol: detectEol(python.text),
      ...declared,
    };
  }
  let text: string;
  let encoding: Encoding = "utf-8";
  try {
    text = UTF8.decode(body);
  } catch {
    // Not UTF-8: read byte for byte, so that writing back keeps every byte.
    text = latin1Decode(body);
    encoding = "latin1";
  }
  return { text, encoding, bom, eol: detectEol(text), ...declared };
}

/** A Python file's PEP 263 coding: its name, and the text when it decides the decoding (a UTF-8 BOM wins). */
interface PythonCoding {
  name: string;
  text?: string;
  encoding?: Encoding;
  note?: string;
}

function pythonCoding(body: Uint8Array, bom: boolean): PythonCoding {
  const name = declaredCoding(body) ?? "";
  if (bom || name === "") return { name };
  const encoding = codecFor(name);
  const fallback = "read as UTF-8 (Latin-1 where that fails)";
  if (encoding === undefined) {
    return {
      name,
      note: `the coding "${name}" it declares is not one toolhost knows; ${fallback}`,
    };
  }
  if (encoding === "utf-8") return { name };
  if (encoding === "latin1") return { name, text: latin1Decode(body), encoding };
  const text = decodeLegacy(body, encoding);
  return text === undefined
    ? { name, note: `its bytes are not valid ${encoding}, the coding it declares; ${fallback}` }
    : { name, text, encoding };
}

/**
 * Convert `\n` line endings in new text to the file's own ending.
 *
 * @param text Text written by the model (any endings).
 * @param eol The file's ending.
 * @returns The text with the file's endings.
 */
export function withEol(text: string, eol: TextFile["eol"]): string {
  const normal = text.replace(/\r\n?/g, "\n");
  return eol === "\n" ? normal : normal.replaceAll("\n", eol);
}

/**
 * Split text into lines, each keeping its own line ending.
 *
 * @param text The text.
 * @returns The lines; a final line without ending is kept, an empty tail is not.
 */
export function splitLines(text: string): string[] {
  const lines = text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g);
  return lines ?? [];
}

function detectEol(text: string): TextFile["eol"] {
  if (!text.includes("\r")) return "\n";
  let crlf = 0;
  let lf = 0;
  let cr = 0;
  for (const match of text.matchAll(/\r\n|\r|\n/g)) {
    if (match[0] === "\r\n") crlf++;
    else if (match[0] === "\n") lf++;
    else cr++;
    if (crlf + lf + cr >= 1000) break;
  }
  if (crlf > lf && crlf >= cr) return "\r\n";
  if (cr > lf && cr > crlf) return "\r";
  return "\n";
}

function utf16Bom(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

function latin1Decode(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

const SIGNATURES: Array<[number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive"],
  [[0x1f, 0x8b], "gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x00, 0x61, 0x73, 0x6d], "WebAssembly module"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "SQLite database"],
];

/**
 * A short name for binary content, from its first bytes.
 *
 * @param bytes The file's bytes.
 * @returns E.g. `PNG image`, or `unknown binary data`.
 */
export function describeBinary(bytes: Uint8Array): string {
  for (const [magic, name] of SIGNATURES) {
    if (magic.every((b, i) => bytes[i] === b)) return name;
  }
  return "unknown binary data";
}

/** A file to read with {@linkcode readTexts}. */
export interface BatchFile {
  /** Its name in the directory. */
  name: string;
  /** Its path as shown to the model. */
  display: string;
}

/**
 * Read and decode several text files of one checked directory (in one
 * anchored pass), for tools that search a whole tree: a file that cannot be
 * read, is over `limit` or is binary is counted in `skipped`, never thrown.
 *
 * @param ctx The tool context.
 * @param dir A checked directory (real path).
 * @param files Files in it.
 * @param options The largest size read, in bytes, and where to count what is left out.
 * @returns One entry per file: its text, or `undefined` when it was skipped.
 */
export function readTexts(
  ctx: ToolContext,
  dir: string,
  files: readonly BatchFile[],
  options: { limit: number; skipped: Skipped },
): Array<string | undefined> {
  const { limit, skipped } = options;
  let contents: Array<Uint8Array | Error>;
  try {
    contents = ctx.fs.readMany(dir, files.map((file) => file.name), limit);
  } catch (error) {
    // The directory itself changed or vanished: none of its files can be read.
    for (const file of files) skipped.failed(file.display, error, ctx.logger);
    return files.map(() => undefined);
  }
  return files.map((file, i) => {
    const bytes = contents[i]!;
    if (bytes instanceof RangeError) {
      skipped.add(file.display, `over the ${formatBytes(limit)} size limit`);
    } else if (bytes instanceof Error) {
      skipped.failed(file.display, bytes, ctx.logger);
    } else if (isBinary(bytes)) {
      skipped.add(file.display, `binary file (${describeBinary(bytes)})`);
    } else {
      return decodeText(bytes, file.display).text;
    }
    return undefined;
  });
}
