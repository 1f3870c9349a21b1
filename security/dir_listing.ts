/**
 * Listing a checked directory, anchored to it: its entries without following
 * symlinks, hidden ones left out, with sizes and times when asked.
 *
 * @module
 */

import type { FsParts } from "./fs_hooks.ts";

/** One entry of a directory listing. */
export interface DirEntry {
  /** The entry's name. */
  readonly name: string;
  /** Its real absolute path (for a symlink, the link's own path). */
  readonly path: string;
  /** What it is; symlinks are never followed by listings. */
  readonly kind: "file" | "directory" | "symlink" | "other";
  /** Size in bytes (0 unless sizes were asked for). */
  readonly size: number;
  /** Modification time, when sizes were asked for. */
  readonly mtime: Date | null;
}

/**
 * List a checked directory without following symlinks; hidden entries are left out.
 *
 * @param fs The resolver (what is hidden) and the anchor.
 * @param dir A checked directory (real path).
 * @param options `sizes`: also `lstat` each entry for its size and mtime.
 * @returns The entries, sorted by name.
 */
export function listDirectory(
  fs: FsParts,
  dir: string,
  options: { sizes?: boolean } = {},
): DirEntry[] {
  const entries = fs.anchor.within(dir, (guard) => {
    const out: DirEntry[] = [];
    for (const entry of Deno.readDirSync(dir)) {
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (fs.resolver.hidden(path)) continue;
      const kind = entry.isSymlink
        ? "symlink"
        : entry.isDirectory
        ? "directory"
        : entry.isFile
        ? "file"
        : "other";
      let size = 0;
      let mtime: Date | null = null;
      if (options.sizes) {
        try {
          const info = guard.lstat(entry.name);
          size = info.size;
          mtime = info.mtime;
        } catch {
          // Vanished since readdir: listed with size 0 and no mtime rather than failing the
          // listing (a listing must not throw on a race it cannot help).
        }
      }
      out.push({ name: entry.name, path, kind, size, mtime });
    }
    return out;
  });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
