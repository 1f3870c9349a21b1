/**
 * Making the missing directories above a checked path, one by one from the
 * top: each resolved through the resolver and made anchored to its parent;
 * one made meanwhile by a concurrent call is fine when it is a real
 * directory.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { FsParts } from "./fs_hooks.ts";

/**
 * Make the missing parent directories of a path.
 *
 * @param fs The resolver (each directory is checked as a write) and the anchor.
 * @param path A checked real path whose parents may be missing.
 * @throws {ToolError} What the resolver refuses of a directory on the way.
 */
export async function makeParents(fs: FsParts, path: string): Promise<void> {
  const missing: string[] = [];
  let dir = posix.dirname(path);
  while (!(await exists(dir))) {
    missing.unshift(dir);
    dir = posix.dirname(dir);
  }
  for (const each of missing) {
    const resolved = await fs.resolver.resolve(each, {
      want: "directory",
      mayCreate: true,
      write: true,
    });
    if (resolved.info !== undefined) continue;
    fs.anchor.within(posix.dirname(resolved.path), () => {
      try {
        Deno.mkdirSync(resolved.path);
      } catch (error) {
        // A concurrent call made it first: fine, if it is a real directory.
        if (
          !(error instanceof Deno.errors.AlreadyExists) ||
          !Deno.lstatSync(resolved.path).isDirectory
        ) throw error;
      }
    });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    // Not there (or not visible): the directory is then made through the resolver, whose
    // checks and mkdir report any real error.
    return false;
  }
}
