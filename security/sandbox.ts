/**
 * The sandbox's layout: what a program started by a tool (a shell command,
 * git, bd) sees, as bubblewrap (`bwrap`) arguments. It is the kernel's
 * boundary for programs, as Deno's permissions and Landlock are for tool
 * code: no spelling of a command matters, only what is mounted.
 *
 * - the roots, read-write (or read-only for a read tool), less the
 *   protected paths that exist (mounted read-only over themselves) and the
 *   state directory (an empty read-only directory in its place);
 * - a read-only view of the system (`/usr`, `/bin`, `/lib*`, `/etc` less its
 *   secrets) and of the toolchains on the configured PATH;
 * - a fresh `/tmp`, an empty `$HOME` (at the host's home path, so that
 *   toolchains found through it still resolve), its own `/proc` and a
 *   minimal `/dev`;
 * - every namespace of its own (PID, IPC, UTS, user, cgroup and, unless the
 *   user shares it, network), all capabilities dropped, a new session, and
 *   death with the host.
 *
 * The never-visible paths (`~/.ssh`, `~/.aws`, …) are hidden even where they
 * lie inside something mounted. Nothing else of the host is there.
 *
 * The layout is computed from a {@linkcode SandboxPlan} (what the launcher
 * found on the host: bwrap, the system's directories, the toolchains, the
 * secrets that exist) and one run's needs.
 *
 * @module
 */

/** A part of the system's view: a directory mounted read-only, or a symlink (merged `/usr`). */
export type SystemEntry =
  | { readonly kind: "dir"; readonly path: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string };

/** An existing path never shown to a program. */
export interface HiddenPath {
  /** Its absolute path. */
  readonly path: string;
  /** A directory (replaced by an empty one) or a file (replaced by an empty file). */
  readonly dir: boolean;
}

/** The limits set on every program (rlimits, and the host's process count watch). */
export interface SandboxLimits {
  /** Memory a program may write (the data rlimit), in MiB. */
  readonly memoryMb: number;
  /** The largest file it may write, in MiB. */
  readonly fileMb: number;
  /** The most processes at once; past it every process of the run is killed. */
  readonly processes: number;
  /** Open files. */
  readonly openFiles: number;
}

/** What the launcher found on the host for the sandbox: plain data, it crosses processes. */
export interface SandboxPlan {
  /** The bwrap binary (absolute), or null. */
  readonly bwrap: string | null;
  /** Why there is none, when there is none. */
  readonly reason?: string;
  /** Run programs without bwrap (the user's `shell.unconfined`); the shell binary then. */
  readonly unconfined: string | null;
  /** The shell inside (`/bin/bash`, else `/bin/sh`). */
  readonly shell: string;
  /** PATH inside. */
  readonly path: string;
  /** HOME inside: an empty directory at this path. */
  readonly home: string;
  /** The environment inside, besides PATH and HOME (LANG, TERM, `shell.env`). */
  readonly env: Readonly<Record<string, string>>;
  /** The system's view. */
  readonly system: readonly SystemEntry[];
  /** Toolchain directories from the PATH, mounted read-only. */
  readonly toolchains: readonly string[];
  /** Existing never-visible paths inside something mounted. */
  readonly hidden: readonly HiddenPath[];
  /** Share the host's network. */
  readonly network: boolean;
  /** The limits. */
  readonly limits: SandboxLimits;
  /** Programs found on PATH, by name (git, bd), absolute. */
  readonly programs: Readonly<Record<string, string>>;
  /** Default and largest time limit of a shell command, in seconds. */
  readonly timeoutS: { readonly default: number; readonly max: number };
  /** Whether the host runs as root (the kernel does not hold root to the process rlimit). */
  readonly root: boolean;
  /** The host's user id: a run over overlays maps it back inside (`sandbox_overlay.ts`). */
  readonly uid?: number;
  /** The host's group id, likewise. */
  readonly gid?: number;
}

/** One run's needs. */
export interface SandboxRun {
  /** The roots (real paths). */
  readonly roots: readonly string[];
  /** The roots read-write, or read-only. */
  readonly write: boolean;
  /** Protected paths that exist now, mounted read-only over themselves (real paths). */
  readonly protectedPaths: readonly string[];
  /** The state directory: an empty read-only directory in its place. */
  readonly stateDir: string;
  /** Where the program starts (a real path inside a root). */
  readonly cwd: string;
  /** The whole environment inside (bwrap itself is started with none). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The bwrap arguments for one run, up to (not including) the program.
 *
 * @param plan What the launcher found.
 * @param run The run's roots, access and cwd.
 * @returns The arguments, ending with `--`.
 */
export function bwrapArgs(plan: SandboxPlan, run: SandboxRun): string[] {
  const args = [...namespaceArgs(plan), "--cap-drop", "ALL", ...systemArgs(plan)];
  for (const root of run.roots) args.push(run.write ? "--bind" : "--ro-bind", root, root);
  return [...args, ...viewArgs(plan, run), ...envArgs(run)];
}

/**
 * The namespaces: all of the host's unshared (the network kept only when
 * the user shares it), a new session, death with the host.
 *
 * @param plan What the launcher found.
 * @returns The arguments.
 */
export function namespaceArgs(plan: SandboxPlan): string[] {
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(plan.network ? ["--share-net"] : []),
  ];
}

/**
 * The system's view: its directories read-only, `/proc`, a minimal `/dev`,
 * a fresh `/tmp`, an empty home and the toolchains read-only.
 *
 * @param plan What the launcher found.
 * @returns The arguments.
 */
export function systemArgs(plan: SandboxPlan): string[] {
  const args: string[] = [];
  for (const entry of plan.system) {
    if (entry.kind === "dir") args.push("--ro-bind", entry.path, entry.path);
    else args.push("--symlink", entry.target, entry.path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--perms", "0700", "--tmpfs", plan.home);
  for (const dir of plan.toolchains) args.push("--ro-bind", dir, dir);
  return args;
}

/**
 * What is laid over the roots once they are there: the protected paths
 * read-only over themselves (a write run's), the state directory and the
 * hidden paths empty.
 *
 * @param plan What the launcher found (its hidden paths).
 * @param run The run.
 * @returns The arguments.
 */
export function viewArgs(plan: SandboxPlan, run: SandboxRun): string[] {
  const args: string[] = [];
  if (run.write) {
    // A mount point cannot be renamed: each directory between a root and a protected path is
    // mounted over itself, so no rename of `.git` (say) carries what it protects away.
    for (const dir of pinned(run.protectedPaths, run.roots)) args.push("--bind", dir, dir);
    for (const path of run.protectedPaths) args.push("--ro-bind", path, path);
  }
  if (visible(run.stateDir, plan, run.roots)) args.push(...emptyDir(run.stateDir));
  for (const hidden of plan.hidden) {
    if (!visible(hidden.path, plan, run.roots)) continue;
    args.push(...(hidden.dir ? emptyDir(hidden.path) : ["--ro-bind", "/dev/null", hidden.path]));
  }
  return args;
}

/**
 * The environment built from nothing, and where the program starts.
 *
 * @param run The run (its environment and cwd).
 * @returns The arguments, ending with `--`.
 */
export function envArgs(run: SandboxRun): string[] {
  const args = ["--clearenv"];
  for (const [name, value] of Object.entries(run.env)) args.push("--setenv", name, value);
  args.push("--chdir", run.cwd, "--");
  return args;
}

/** The directories strictly between a root and each protected path, shallowest first. */
function pinned(paths: readonly string[], roots: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const root = roots.filter((each) => path.startsWith(`${each}/`))
      .sort((a, b) => b.length - a.length)[0];
    if (root === undefined) continue;
    const parts = path.slice(root.length + 1).split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${root}/${parts.slice(0, i).join("/")}`);
  }
  return [...dirs].sort((a, b) => a.split("/").length - b.split("/").length);
}

/** An empty, read-only directory over `path`. */
function emptyDir(path: string): string[] {
  return ["--perms", "0555", "--tmpfs", path, "--remount-ro", path];
}

/** Whether a path lies inside something the layout mounts (else it is not there to hide). */
function visible(path: string, plan: SandboxPlan, roots: readonly string[]): boolean {
  const trees = [
    ...roots,
    ...plan.toolchains,
    ...plan.system.flatMap((entry) => entry.kind === "dir" ? [entry.path] : []),
  ];
  return trees.some((tree) => path === tree || path.startsWith(tree === "/" ? "/" : `${tree}/`));
}

/**
 * The script that runs a program under the limits: rlimits for data
 * (memory it writes), file size, open files and processes (the process rlimit holds for
 * every user but root, whom the kernel does not count), and a watch that
 * kills every process of the run once there are more than the limit. For
 * root the watch is what holds, so the program runs niced below it: a fork
 * bomb then cannot starve the watch of the CPU. The watch uses only shell
 * built-ins after it starts (a glob over `/proc`, a read that times out), so
 * it needs no fork to do its work.
 *
 * The program is its arguments (`"$@"`), run as its child; the script exits
 * with its status, and the PID namespace dies with the script. Just before
 * the program starts, the script writes {@linkcode START_MARK} to standard
 * error (the host cuts it out): until then a kill could land while bwrap is
 * still setting up, before its namespace's init has asked to die with it,
 * and would leave that init and the program running unsupervised; so the
 * host stops a run only once the mark came (`host/sandbox/_spawn.ts`).
 *
 * @param limits The limits.
 * @param how `watch`: watch the process count (only in the sandbox's own PID
 *   namespace: outside it, `kill -1` would reach every process of the user);
 *   `nice`: run the program niced below the watch.
 * @returns The script, for `bash -c`.
 */
export function limitScript(
  limits: SandboxLimits,
  how: { watch: boolean; nice: boolean },
): string {
  const lines = rlimitLines(limits);
  if (how.watch) {
    lines.push(
      `( exec 9<> <(:); while :; do set -- /proc/[0-9]*; if [ $# -gt ${limits.processes} ]; then`,
      `  echo "toolhost: more than ${limits.processes} processes: all stopped" >&2; kill -9 -1; fi;`,
      `  read -t 0.02 -u 9; done ) >/dev/null &`,
    );
  }
  lines.push(`printf '${START_MARK_ESCAPED}' >&2`);
  lines.push(how.nice ? `nice -n ${NICE} "$@"` : `"$@"`);
  return lines.join("\n");
}

/**
 * The script that starts a long-lived program (a sandboxed MCP server) under
 * the rlimits of {@linkcode limitScript}: no process watch (it would poll
 * for the server's whole life) and no start mark (its standard error is the
 * server's log); the sandbox's own PID namespace still dies with it.
 *
 * @param limits The limits.
 * @returns The script, for `bash -c`; the program is its arguments.
 */
export function serverScript(limits: SandboxLimits): string {
  return [...rlimitLines(limits), `exec "$@"`].join("\n");
}

/** The rlimits every program runs under, as shell lines. */
function rlimitLines(limits: SandboxLimits): string[] {
  const kib = (mb: number) => mb * 1024;
  return [
    // The data limit, not the address space's: V8 and WebAssembly reserve far more than they use.
    `ulimit -d ${kib(limits.memoryMb)} -f ${kib(limits.fileMb)} -n ${limits.openFiles}`,
    `ulimit -u ${limits.processes} 2>/dev/null`,
  ];
}

/**
 * What the limit script writes to standard error just before it starts the
 * program: a NUL, a name no program prints by chance, a newline.
 */
export const START_MARK = "\u0000toolhost:started\n";

/** {@linkcode START_MARK} as a `printf` format (octal escapes, which every shell's printf reads). */
const START_MARK_ESCAPED = "\\000toolhost:started\\n";

/** How far below the watch a program runs where the watch holds its process count. */
const NICE = 15;
