/**
 * The tool assets (the tree-sitter runtime and grammars) as paths a process
 * must be allowed to read.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { TOOL_ASSETS } from "../../tools/assets.ts";

/**
 * The paths, found once per process: the served process needs them at start
 * for its grants, its first worker and its pool.
 */
let found: Promise<readonly string[]> | undefined;

/**
 * The tool assets' paths and, where they are symlinks (node_modules), their real paths.
 *
 * @returns The paths, each asset's own path before its real path.
 */
export async function assetPaths(): Promise<string[]> {
  found ??= findAssetPaths();
  return [...(await found)];
}

async function findAssetPaths(): Promise<readonly string[]> {
  const paths: string[] = [];
  for (const url of TOOL_ASSETS) {
    const path = fromFileUrl(url);
    paths.push(path);
    try {
      const real = await Deno.realPath(path);
      if (real !== path) paths.push(real);
    } catch {
      // Safe to drop: missing until the npm packages are installed, and the tool says so when used.
    }
  }
  return paths;
}
