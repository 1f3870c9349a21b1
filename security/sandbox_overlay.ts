/**
 * A writing run over an overlay: the command sees the roots as they are and
 * writes freely, but what it writes lands in an upper directory outside
 * every root (the scratch directory), never in a root itself, until it ends
 * and a tool worker merges it in, refusing protected paths
 * (`tools/files/_overlay_merge.ts`). So a `toolhost.json`, `.envrc`,
 * `.git/hooks/pre-commit` or `sub/.git/config` a command writes does not
 * exist in a root even while the command runs, when a toolhost, git or an
 * editor started meanwhile would obey it.
 *
 * bubblewrap 0.8 (Debian 12's) cannot mount an overlay itself, so a run has
 * two stages:
 *
 * 1. An outer bwrap makes the namespaces and the system's view as for any
 *    run, and shows each root read-only at a staging path
 *    (`/run/toolhost/lower/<i>`) and its scratch directory
 *    (`/run/toolhost/scratch/<i>`, holding `upper` and `work`), with three
 *    capabilities in its user namespace — to mount (`CAP_SYS_ADMIN`), to make
 *    overlayfs's work files (`CAP_DAC_OVERRIDE`), and to map the user back
 *    (`CAP_SETFCAP`) — as uid 0 of that namespace, which `mount(8)` wants.
 *    Its setup script mounts an overlay (`userxattr`: the marks go into
 *    `user.` attributes) at each root's own path, then runs stage 2.
 * 2. An inner bwrap, in a user namespace of its own that maps the host's
 *    user back, lays the usual view over the overlays (protected paths
 *    read-only, the state directory and hidden entries empty), hides the
 *    staging paths, drops every capability, builds the environment from
 *    nothing and runs the command under the limit script. The mounts belong
 *    to stage 1's namespace: nothing in the command can unmount them, and a
 *    namespace it makes gets them locked.
 *
 * @module
 */

import {
  envArgs,
  namespaceArgs,
  type SandboxPlan,
  type SandboxRun,
  systemArgs,
  viewArgs,
} from "./sandbox.ts";

/** Where stage 1 shows the roots, the scratch directories and bwrap. */
export const STAGING = "/run/toolhost";

/** The capabilities stage 1 keeps (in its own user namespace only). */
const SETUP_CAPS = ["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_SETFCAP"];

/**
 * Stage 1's script: mount an overlay at each root (arguments: index and
 * root, pairs, then `--`), then run stage 2 (the arguments after `--`).
 */
const SETUP_SCRIPT = [
  "set -e",
  'while [ "$1" != -- ]; do',
  `  mount -t overlay overlay -o "userxattr,lowerdir=${STAGING}/lower/$1,upperdir=${STAGING}/scratch/$1/upper,workdir=${STAGING}/scratch/$1/work" "$2"`,
  "  shift 2",
  "done",
  "shift",
  'exec "$@"',
].join("\n");

/** One root's overlay: where its writes wait. */
export interface OverlayRoot {
  /** The root (a real path). */
  readonly root: string;
  /** Its scratch directory: `upper` and `work` inside, made before the run. */
  readonly scratch: string;
}

/**
 * The bwrap arguments of a writing run over overlays, up to (not including)
 * the program: stage 1, its setup script, and stage 2 ending with `--`.
 *
 * @param plan What the launcher found (bwrap, the host's uid and gid).
 * @param run The run (its roots read-write, its protected and hidden paths).
 * @param overlays Each root's scratch directory (a root inside another has none: the outer one's shows it).
 * @returns The arguments.
 * @throws {TypeError} When the plan has no bwrap or no uid.
 */
export function overlayArgs(
  plan: SandboxPlan,
  run: SandboxRun,
  overlays: readonly OverlayRoot[],
): string[] {
  if (plan.bwrap === null || plan.uid === undefined || plan.gid === undefined) {
    throw new TypeError("Cannot lay out an overlay run: the plan has no bwrap, uid or gid");
  }
  const outer = [...namespaceArgs(plan), "--uid", "0", "--gid", "0"];
  for (const cap of SETUP_CAPS) outer.push("--cap-add", cap);
  outer.push(...systemArgs(plan));
  overlays.forEach(({ root, scratch }, i) => {
    outer.push("--ro-bind", root, `${STAGING}/lower/${i}`);
    outer.push("--bind", scratch, `${STAGING}/scratch/${i}`, "--dir", root);
  });
  outer.push("--ro-bind", plan.bwrap, `${STAGING}/bwrap`);
  outer.push("--clearenv", "--setenv", "PATH", "/usr/sbin:/usr/bin:/sbin:/bin", "--chdir", "/");
  outer.push("--", plan.shell, "-c", SETUP_SCRIPT, "toolhost");
  overlays.forEach(({ root }, i) => outer.push(String(i), root));
  outer.push("--");
  const inner = [
    `${STAGING}/bwrap`,
    "--die-with-parent",
    "--unshare-user",
    "--uid",
    String(plan.uid),
    "--gid",
    String(plan.gid),
    "--dev-bind",
    "/",
    "/",
    ...viewArgs(plan, run),
    "--tmpfs",
    STAGING,
    "--cap-drop",
    "ALL",
    ...envArgs(run),
  ];
  return [...outer, ...inner];
}

/**
 * The roots that get an overlay: each one not inside another (an inner
 * root's files are shown, and merged, through the outer one's).
 *
 * @param roots The roots (real paths).
 * @returns The outermost roots, in order.
 */
export function overlaidRoots(roots: readonly string[]): string[] {
  return roots.filter((root) =>
    !roots.some((other) => other !== root && root.startsWith(`${other}/`))
  );
}
