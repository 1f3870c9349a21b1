/**
 * Writing a file of a checked directory atomically: a temp file beside it,
 * checked before any content goes in, renamed over the name and checked
 * again (the guard and the swap checks are in `anchored.ts`).
 *
 * @module
 */

import { type DirGuard, sameFile, swapped } from "./anchored.ts";
import { ToolError } from "./errors.ts";

/**
 * Replace (or create) `name` in a guarded directory atomically: a temp file
 * beside it, checked before any content goes in, flushed, given the old
 * file's mode, renamed over the name, and checked again.
 *
 * @param guard The directory guard.
 * @param name One path segment.
 * @param data The new content.
 * @param options `allowHardlinks`; `mode` for a new file (default 0o644).
 * @returns What `fstat` says of the new file once its content is written.
 * @throws {ToolError} `path_denied` when the name is a symlink, a special file, hard-linked, or was swapped.
 */
export function writeAtomic(
  guard: DirGuard,
  name: string,
  data: Uint8Array,
  options: { allowHardlinks: boolean; mode?: number },
): Deno.FileInfo {
  const target = guard.path(name);
  let mode = options.mode ?? 0o644;
  try {
    const old = Deno.lstatSync(target);
    if (!old.isFile) throw swapped(name);
    if (!options.allowHardlinks && (old.nlink ?? 1) > 1) {
      throw new ToolError(
        "path_denied",
        `"${name}" has ${old.nlink} hard links; set "allowHardlinks": true in toolhost.json to write such files`,
      );
    }
    mode = (old.mode ?? mode) & 0o7777;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  guard.verify();
  const temp = guard.path(`.${name.slice(0, 100)}.${crypto.randomUUID().slice(0, 8)}.toolhost-tmp`);
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o600 });
  let renamed = false;
  try {
    const info = file.statSync();
    sameFile(guard, temp.slice(temp.lastIndexOf("/") + 1), info);
    guard.verify();
    let offset = 0;
    while (offset < data.length) offset += file.writeSync(data.subarray(offset));
    file.syncDataSync();
    const written = file.statSync();
    file.close();
    Deno.chmodSync(temp, mode);
    guard.verify();
    Deno.renameSync(temp, target);
    renamed = true;
    sameFile(guard, name, info);
    return written;
  } catch (error) {
    try {
      file.close();
    } catch {
      // Already closed (the chmod or the rename failed, after the close): nothing left to
      // close, and the error that brought us here is the one to throw.
    }
    if (!renamed) removeOwnTemp(temp);
    throw error;
  }
}

/**
 * Remove a temp file this operation created. When a swapped directory made it
 * land elsewhere, the name resolves to it only while the swap lasts, so try
 * for a moment: the name is random, so whatever it removes is ours.
 */
function removeOwnTemp(temp: string): void {
  const until = performance.now() + 5;
  while (performance.now() < until) {
    try {
      Deno.removeSync(temp);
      return;
    } catch {
      // Not there through this path right now: try again until the deadline. Cleanup must not
      // throw over the error being raised; at worst a stray `.toolhost-tmp` file stays behind.
    }
  }
}
