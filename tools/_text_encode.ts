/**
 * Writing text back as its file was encoded: the same encoding, BOM and
 * width, or for a Python file the coding its new text declares (PEP 263).
 * Reading is in `_text.ts`.
 *
 * @module
 */

import { ToolError } from "../security/errors.ts";
import { codecFor, declaredCoding, encodeLegacy, isLegacy } from "./_codecs.ts";
import type { Encoding, TextFile } from "./_text.ts";

/**
 * Encode text the way a file was encoded (a Python file: in the coding its
 * new text declares, per PEP 263).
 *
 * @param text The new text (without BOM).
 * @param like The file it came from.
 * @returns The bytes to write.
 * @throws {ToolError} `invalid_argument` when the encoding cannot hold a
 * character; `unsupported` for a multi-byte legacy coding or a declared
 * codec toolhost does not know.
 */
export function encodeText(
  text: string,
  like: Pick<TextFile, "encoding" | "bom" | "pep263">,
): Uint8Array {
  const encoding = writtenEncoding(text, like);
  if (isLegacy(encoding)) return encodeLegacy(text, encoding);
  if (encoding === "utf-8") {
    const body = new TextEncoder().encode(text);
    if (!like.bom) return body;
    const out = new Uint8Array(body.length + 3);
    out.set([0xef, 0xbb, 0xbf]);
    out.set(body, 3);
    return out;
  }
  if (encoding === "latin1") {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0xff) {
        throw new ToolError(
          "invalid_argument",
          `Cannot write "${text[i]}": the file is Latin-1 (not UTF-8) and cannot hold it`,
        );
      }
      out[i] = code;
    }
    return out;
  }
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  const little = encoding === "utf-16le";
  view.setUint16(0, 0xfeff, little);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), little);
  return out;
}

/** The encoding new text is written in: the file's, or the other coding a Python file's new text declares. */
function writtenEncoding(
  text: string,
  like: Pick<TextFile, "encoding" | "bom" | "pep263">,
): Encoding {
  if (like.pep263 === undefined || like.bom || like.encoding.startsWith("utf-16")) {
    return like.encoding;
  }
  const name = declaredCoding(text) ?? "";
  if (name === like.pep263) return like.encoding;
  if (name === "") return "utf-8";
  const encoding = codecFor(name);
  if (encoding === undefined) {
    throw new ToolError(
      "unsupported",
      `Cannot write the file in "${name}", the coding its new text declares: toolhost does not know that codec`,
    );
  }
  return encoding;
}
