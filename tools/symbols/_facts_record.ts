/**
 * A kept record's bytes (`_facts_store.ts`): a header line (the format, the
 * path, the version, the sections' names and byte lengths), each section
 * as one line of JSON, then the source text as it is. Read back, each part
 * is copied out (so that the parts not decoded yet hold only their own
 * bytes) and decoded at its first use.
 *
 * @module
 */

/** Facts as a record holds them: the source text, and the rest as named JSON values. */
export interface FactsSections {
  /** The text the facts were collected from. */
  readonly text: string;
  /** The rest, by name (each written as one line of JSON). */
  readonly sections: Readonly<Record<string, unknown>>;
}

/** A record read back: its parts, each decoded when first asked for (then kept by the caller). */
export interface StoredSections {
  /** The source text. */
  text(): string;
  /**
   * One section's value.
   *
   * @param name The section's name, as written.
   * @throws {Error} When the record has no such section or it does not parse.
   */
  section(name: string): unknown;
}

/** A record's first line. */
export interface Header {
  readonly format: number;
  readonly path: string;
  readonly mtime: number;
  readonly size: number;
  /** Each section's name and byte length (its line, without the newline). */
  readonly sections: ReadonlyArray<readonly [string, number]>;
  /** The text's byte length. */
  readonly text: number;
}

/** Bump when the facts' shape changes: older records are then misses. */
const FORMAT = 4;

const NEWLINE = 10;

/** A record's bytes: the header line, one line per section, the text. */
export function encodeRecord(
  path: string,
  mtime: number,
  size: number,
  facts: FactsSections,
): Uint8Array {
  const encoder = new TextEncoder();
  const lines = Object.entries(facts.sections).map(([name, value]) =>
    [name, encoder.encode(JSON.stringify(value))] as const
  );
  const text = encoder.encode(facts.text);
  const sections = lines.map(([name, line]) => [name, line.length] as const);
  const header: Header = { format: FORMAT, path, mtime, size, sections, text: text.length };
  const parts = [encoder.encode(JSON.stringify(header)), ...lines.map(([, line]) => line)];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0) + text.length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    out[at + part.length] = NEWLINE;
    at += part.length + 1;
  }
  out.set(text, at);
  return out;
}

/**
 * A record's header and its parts, when it is whole and in this format:
 * each part is copied out of the record (so that the parts not decoded yet
 * hold only their own bytes) and decoded at its first use.
 */
export function decodeRecord(
  bytes: Uint8Array,
): { header: Header; stored: StoredSections } | undefined {
  const end = bytes.indexOf(NEWLINE);
  if (end < 0) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(0, end)));
  } catch {
    return undefined;
  }
  if (!isHeader(header)) return undefined;
  const parts = new Map<string, Uint8Array>();
  let at = end + 1;
  for (const [name, length] of header.sections) {
    if (bytes[at + length] !== NEWLINE) return undefined;
    parts.set(name, bytes.slice(at, at + length));
    at += length + 1;
  }
  if (at + header.text !== bytes.length) return undefined;
  const text = bytes.slice(at);
  const decoder = new TextDecoder();
  const stored: StoredSections = {
    text: () => decoder.decode(text),
    section(name) {
      const part = parts.get(name);
      if (part === undefined) throw new Error(`The kept facts have no section "${name}"`);
      return JSON.parse(decoder.decode(part));
    },
  };
  return { header, stored };
}

function isHeader(value: unknown): value is Header {
  const header = value as Header | null;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return header?.format === FORMAT && typeof header.path === "string" &&
    typeof header.mtime === "number" && count(header.size) && count(header.text) &&
    Array.isArray(header.sections) &&
    header.sections.every((entry) =>
      Array.isArray(entry) && typeof entry[0] === "string" && count(entry[1])
    );
}
