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
