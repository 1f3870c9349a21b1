/**
 * The marks overlayfs leaves in an upper directory, read and cleared from a
 * tool worker that merges a shell command's writes into the roots
 * (`tools/files/_overlay_merge.ts`). overlayfs, mounted with `userxattr` as
 * the sandbox mounts it, says that a directory was deleted and made again
 * (so nothing of the lower one shows through) with the extended attribute
 * `user.overlay.opaque` = `y`; deletions are character devices 0/0, which a
 * `stat` tells. Deno has no call for extended attributes, so a worker loads
 * libc's three while it still may (before it gives up FFI), as it loads the
 * reads' calls (`native_fs.ts`).
 *
 * Only paths inside the directories the calls were loaded for are taken (a
 * lexical fence: the scratch directory and the roots), and a path C cannot
 * take as it is fails.
 *
 * @module
 */

const SYMBOLS = {
  lgetxattr: { parameters: ["buffer", "buffer", "buffer", "usize"], result: "isize" },
  llistxattr: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
  lremovexattr: { parameters: ["buffer", "buffer"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The attribute that makes an upper directory opaque. */
const OPAQUE = "user.overlay.opaque";
/** overlayfs's own attributes, in either namespace. */
const OVERLAY_ATTR = /^(?:user|trusted)\.overlay\./;
/** Linux's `PATH_MAX`, and the most the attribute list of one file takes here. */
const PATH_MAX = 4096;
const LIST_MAX = 64 * 1024;

/** overlayfs's marks on upper entries. */
export interface OverlayMarks {
  /**
   * Whether a directory is opaque: nothing of the lower directory shows through it.
   *
   * @param path An absolute path inside the scratch directory.
   * @returns True when marked opaque.
   */
  opaque(path: string): boolean;
  /**
   * Remove overlayfs's attributes from an entry (a link's own, not its target's).
   *
   * @param path An absolute path inside the scratch directory or a root.
   */
  clear(path: string): void;
}

/**
 * Load libc's attribute calls (the caller has FFI permission for libc).
 *
 * @param libc The path of libc.
 * @param within The directories whose paths the calls take.
 * @returns The calls, or `undefined` when libc has none of them.
 */
export function loadOverlayMarks(
  libc: string,
  within: readonly string[],
): OverlayMarks | undefined {
  let lib: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    lib = Deno.dlopen(libc, SYMBOLS);
  } catch {
    return undefined; // not this libc: the sandbox says overlays cannot be merged here
  }
  const fns = lib.symbols;
  const encoder = new TextEncoder();
  const cString = (text: string, fenced: boolean): Uint8Array | undefined => {
    if (text.includes("\0") || !text.isWellFormed()) return undefined;
    if (fenced && !within.some((dir) => text === dir || text.startsWith(`${dir}/`))) {
      return undefined;
    }
    const bytes = encoder.encode(`${text}\0`);
    return bytes.length <= PATH_MAX ? bytes : undefined;
  };
  const value = new Uint8Array(8);
  const list = new Uint8Array(LIST_MAX);
  return {
    opaque(path) {
      const c = cString(path, true);
      if (c === undefined) return false;
      const n = Number(fns.lgetxattr(c, cString(OPAQUE, false)!, value, BigInt(value.length)));
      return n === 1 && value[0] === 0x79; // "y"
    },
    clear(path) {
      const c = cString(path, true);
      if (c === undefined) return;
      const n = Number(fns.llistxattr(c, list, BigInt(list.length)));
      if (n <= 0) return;
      const names = new TextDecoder().decode(list.subarray(0, n)).split("\0");
      for (const name of names) {
        if (OVERLAY_ATTR.test(name)) fns.lremovexattr(c, cString(name, false)!);
      }
    },
  };
}
