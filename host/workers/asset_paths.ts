/**
 * The tool assets (the tree-sitter runtime and grammars) as paths a process
 * must be allowed to read.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { TOOL_ASSETS } from "../../tools/assets.ts";

/**
 * The tool assets' paths and, where they are symlinks (node_modules), their real paths.
 *
 * @returns The paths, each asset's own path before its real path.
 */
export async function assetPaths(): Promise<string[]> {
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
