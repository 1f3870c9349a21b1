/**
 * What a tool worker may reach: the Deno permissions it is started with, and
 * the paths its thread keeps once Landlock confines it (the roots and the
 * state directory to write; the extra files, and ripgrep's binary and
 * libraries, to read).
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { type Policy, writablePaths } from "../../security/policy.ts";
import { type WorkerPermissions, workerPermissions } from "../../security/permissions.ts";
import { findLibc, type LandlockPaths, programPaths } from "../../security/landlock.ts";
import type { ToWorker } from "./protocol.ts";
import type { SpawnOptions } from "./pool_types.ts";

/** A worker's init message, less the mailboxes (each worker has its own). */
export type WorkerSetup = Omit<Extract<ToWorker, { type: "init" }>, "type" | "mailboxes">;

/** What a worker is started with. */
export interface Confinement {
  /** Its Deno permissions. */
  permissions: WorkerPermissions;
  /** What its init message says: policy, tools, ripgrep, libc and Landlock paths. */
  setup: WorkerSetup;
}

/**
 * Work out a tool worker's permissions and Landlock paths from the policy.
 *
 * @param policy The policy (its roots and state directory).
 * @param options The pool's options (tools, ripgrep, extra files, Landlock switch).
 * @returns The permissions and the init message's content.
 */
export function workerConfinement(policy: Policy, options: SpawnOptions): Confinement {
  const libc = options.landlock === false ? null : findLibc();
  const extraRead = [
    ...(options.extraRead ?? []),
    ...(options.toolsModule ? [fromFileUrl(options.toolsModule)] : []),
  ];
  const rg = options.ripgrep.path;
  const permissions = workerPermissions(policy, {
    run: rg !== null ? [rg] : [],
    read: extraRead,
    libc,
  });
  const setup: WorkerSetup = {
    policy,
    registry: options.registry,
    ripgrep: rg,
    ...(options.ripgrep.path === null ? { noRipgrep: options.ripgrep.reason } : {}),
    libc,
    ...(libc ? {} : { noLibc: whyNoLibc(options) }),
    toolsModule: options.toolsModule?.href ?? null,
    landlock: landlockPaths(options.confineTo ?? policy, { extraRead, ripgrep: rg, libc }),
  };
  return { permissions, setup };
}

/** Why the worker's thread is not confined for want of libc. */
function whyNoLibc(options: SpawnOptions): string {
  return options.landlock === false
    ? 'switched off ("landlock": false in toolhost.json)'
    : "libc was not found";
}

/** What stays reachable under Landlock. */
function landlockPaths(
  policy: Policy,
  needs: { extraRead: string[]; ripgrep: string | null; libc: string | null },
): LandlockPaths {
  const { extraRead, ripgrep, libc } = needs;
  return {
    readWrite: writablePaths(policy),
    // ripgrep runs from the confined thread, so it is confined too; it needs its binary and libraries.
    readOnly: [
      ...extraRead,
      ...(ripgrep !== null && libc ? programPaths(ripgrep, libc) : []),
    ],
  };
}
