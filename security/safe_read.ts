/**
 * Reading checked files, anchored to their directory: one whole file with
 * what identifies its version, several files of one directory in one pass,
 * and the check before an overwrite that the file is still the version the
 * agent last read.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { DirGuard } from "./anchored.ts";
import { openVerified, readAll } from "./anchored_open.ts";
import { ToolError } from "./errors.ts";
import { type FileVersion, fingerprint, type FsParts } from "./fs_hooks.ts";
import type { ResolvedPath } from "./resolver.ts";
import { formatBytes } from "./sizes.ts";

/**
 * Read a checked file with what identifies this version of it.
 *
 * @param fs The resolver, anchor and hooks (told of the read).
 * @param resolved A checked file path.
 * @param limit The largest size accepted, in bytes.
 * @returns The bytes, `fstat` and fingerprint.
 * @throws {ToolError} `too_large`, or `path_denied` when it was swapped.
 */
export function readVersion(fs: FsParts, resolved: ResolvedPath, limit: number): FileVersion {
  const dir = posix.dirname(resolved.path);
  const name = posix.basename(resolved.path);
  return fs.anchor.within(dir, (guard) => {
    const opened = openVerified(guard, name, fs.resolver.policy.allowHardlinks);
    try {
      if (opened.info.size > limit) {
        throw new ToolError(
          "too_large",
          `Cannot read "${resolved.display}" whole: it is ${
            formatBytes(opened.info.size)
          }, the limit is ${formatBytes(limit)}; use get_file_slice for a range of lines`,
        );
      }
      const bytes = readAll(opened, limit);
      const file = { bytes, info: opened.info, fingerprint: fingerprint(bytes) };
      fs.hooks.read?.(resolved, file);
      return file;
    } finally {
      opened.file.close();
    }
  });
}

/**
 * Read several files of one checked directory in one anchored pass. Files
 * that are not regular, are swapped, or are over `limit` come back as errors.
 *
 * @param fs The resolver and anchor.
 * @param dir A checked directory (real path).
 * @param files The names in it, and the largest size read, in bytes.
 * @returns One entry per name: the bytes or why not.
 */
export function readMany(
  fs: FsParts,
  dir: string,
  files: { names: readonly string[]; limit: number },
): Array<Uint8Array | Error> {
  const { names, limit } = files;
  return fs.anchor.within(dir, (guard) =>
    names.map((name) => {
      try {
        const opened = openVerified(guard, name, fs.resolver.policy.allowHardlinks);
        try {
          if (opened.info.size > limit) return new RangeError(`over ${limit} bytes`);
          return readAll(opened, limit);
        } finally {
          opened.file.close();
        }
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }));
}

/**
 * Refuse to overwrite a file that changed since the agent last read it.
 *
 * @param fs The resolver and the hooks that know what the agent last read.
 * @param guard The file's directory, held still.
 * @param resolved The checked file (its name in `guard`).
 * @throws {ToolError} `stale_read` when its fingerprint is not the expected one.
 */
export function refuseStale(fs: FsParts, guard: DirGuard, resolved: ResolvedPath): void {
  const expected = fs.hooks.expected?.(resolved.display);
  if (expected === undefined) return;
  const name = posix.basename(resolved.path);
  const opened = openVerified(guard, name, fs.resolver.policy.allowHardlinks);
  let current: Uint8Array;
  try {
    current = readAll(opened, fs.resolver.policy.limits.maxEditBytes);
  } finally {
    opened.file.close();
  }
  if (fingerprint(current) !== expected) {
    throw new ToolError(
      "stale_read",
      `"${resolved.display}" changed since you last read it (by another program or session); read it again first, or pass force: true to edit it anyway`,
    );
  }
}
