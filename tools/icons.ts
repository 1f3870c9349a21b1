/**
 * The tool families' icons (MCP 2025-11-25 `Tool.icons`): a glyph on a
 * coloured rounded square, as a small self-made SVG in a `data:` URI, so
 * that no client fetches anything from elsewhere to draw them. Each family
 * declares its own (`icon` in its `family.ts`); an upstream server's tools
 * share one.
 *
 * @module
 */

/** An icon as `tools/list` carries it. */
export interface ToolIcon {
  /** A `data:image/svg+xml;base64,…` URI. */
  readonly src: string;
  /** Its media type. (No `sizes`: without them a client may draw it at any size, as an SVG scales.) */
  readonly mimeType: "image/svg+xml";
}

/**
 * An icon: a glyph (one or two characters) in white on a rounded square.
 *
 * @param glyph What it shows (`F`, `Py`, `$`).
 * @param colour The square's colour, as CSS hex (`#3776ab`).
 * @returns The icon, frozen.
 * @throws {RangeError} When the glyph is empty or longer than two characters, or the colour is no hex colour.
 */
export function glyphIcon(glyph: string, colour: string): ToolIcon {
  const characters = [...glyph].length;
  if (characters < 1 || characters > 2) {
    throw new RangeError(`Cannot draw icon "${glyph}": a glyph is one or two characters`);
  }
  if (!/^#[0-9a-f]{3}(?:[0-9a-f]{3})?$/i.test(colour)) {
    throw new RangeError(`Cannot draw icon "${glyph}": "${colour}" is not a hex colour`);
  }
  const size = characters === 1 ? 15 : 11;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">` +
    `<rect width="24" height="24" rx="5" fill="${colour}"/>` +
    `<text x="12" y="${12 + Math.round(size * 0.36)}" fill="#fff" text-anchor="middle" ` +
    `style="font:700 ${size}px sans-serif">${escapeXml(glyph)}</text></svg>`;
  const bytes = new TextEncoder().encode(svg);
  const base64 = btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""));
  return Object.freeze({
    src: `data:image/svg+xml;base64,${base64}`,
    mimeType: "image/svg+xml",
  });
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Tools as listed with an icon each: their family's (a client draws it; a
 * model never reads it).
 *
 * @param tools The tools, as described.
 * @param iconOf Each tool's icon by its name, or `undefined` for none.
 * @returns New descriptors, in the same order, each with its icon.
 */
export function withIcons<T extends { readonly name: string }>(
  tools: readonly T[],
  iconOf: (name: string) => ToolIcon | undefined,
): Array<T & { icons?: ToolIcon[] }> {
  return tools.map((tool) => {
    const icon = iconOf(tool.name);
    return icon === undefined ? tool : { ...tool, icons: [icon] };
  });
}

/** Each family's icon, by family name, and the one upstream servers' tools share. */
export const ICONS = Object.freeze({
  files: glyphIcon("F", "#546e7a"),
  cfamily: glyphIcon("C", "#00599c"),
  typescript: glyphIcon("TS", "#3178c6"),
  analysis: glyphIcon("A", "#7b1fa2"),
  python: glyphIcon("Py", "#306998"),
  symbols: glyphIcon("S", "#00897b"),
  observe: glyphIcon("O", "#5d4037"),
  todo: glyphIcon("\u2713", "#2e7d32"),
  shell: glyphIcon("$", "#212121"),
  git: glyphIcon("G", "#f05032"),
  beads: glyphIcon("B", "#c2185b"),
  web: glyphIcon("W", "#0277bd"),
  upstream: glyphIcon("\u2197", "#607d8b"),
});
