/**
 * Whether the host runs as root: the kernel does not hold root to the
 * process rlimit, so a sandboxed run's process count is then held by the
 * limit script's watch, the command niced below it (`security/sandbox.ts`).
 *
 * @module
 */

/**
 * Whether this process runs as root.
 *
 * @returns True for uid 0; false where the uid may not be asked (the launcher has `--allow-sys=uid`).
 */
export function runsAsRoot(): boolean {
  if (Deno.permissions.querySync({ name: "sys", kind: "uid" }).state !== "granted") return false;
  return Deno.uid() === 0;
}

/**
 * The host's user and group ids, where this process may ask (the launcher
 * has `--allow-sys=uid,gid`): a writing run over overlays maps them back
 * inside (`security/sandbox_overlay.ts`).
 *
 * @returns The ids, or `undefined` where they may not be asked.
 */
export function hostIds(): { uid: number; gid: number } | undefined {
  const may = (kind: "uid" | "gid") =>
    Deno.permissions.querySync({ name: "sys", kind }).state === "granted";
  if (!may("uid") || !may("gid")) return undefined;
  const uid = Deno.uid();
  const gid = Deno.gid();
  return uid === null || gid === null ? undefined : { uid, gid };
}
