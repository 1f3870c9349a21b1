/**
 * Where efferent copy is switched on and where its peers are listed.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The variables that switch efferent copy on and off (seed 000). */
export const EFFERENT_ENV: readonly string[] = Object.freeze([
  "EFFERENT_COPY_ENABLE",
  "EFFERENT_COPY_DISABLE",
]);

/**
 * Whether efferent copy is on: `EFFERENT_COPY_ENABLE=1` turns it on,
 * `EFFERENT_COPY_DISABLE=1` forces it off; an explicit choice wins.
 *
 * @param explicit The caller's choice, if any.
 * @returns On or off.
 */
export function efferentCopyEnabled(explicit?: boolean): boolean {
  if (explicit !== undefined) return explicit;
  const read = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
      ? Deno.env.get(name)
      : undefined;
  return read("EFFERENT_COPY_ENABLE") === "1" && read("EFFERENT_COPY_DISABLE") !== "1";
}

/**
 * This host's entry script (`mod.ts`), for the self-reference defence.
 *
 * @returns Its absolute path.
 */
export function selfEntry(): string {
  return fileURLToPath(new URL("../../mod.ts", import.meta.url));
}

/**
 * Every script that starts this host (`mod.ts`, the command line
 * bin/toolhost runs, the launcher that `mcp-config` prints, and the served
 * entry the launcher becomes): a peer running one of them is never a sink.
 *
 * @returns Their absolute paths.
 */
export function selfEntries(): readonly string[] {
  return [
    selfEntry(),
    ...["main.ts", "launcher.ts", "serve_main.ts"].map((name) =>
      fileURLToPath(new URL(`../cli/${name}`, import.meta.url))
    ),
  ];
}
