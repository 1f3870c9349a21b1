/**
 * The sandbox's plan: what the launcher finds on the host for it (bwrap, the
 * system's directories, the toolchains on the PATH, the secrets that exist,
 * the environment inside). The launcher may read anywhere and the whole
 * environment; the served process may not, so the launcher hands the plan
 * on in {@linkcode PLAN_ENV} and the served process only checks it.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type {
  HiddenPath,
  SandboxLimits,
  SandboxPlan,
  SystemEntry,
} from "../../security/sandbox.ts";
import { isInside } from "../../security/policy.ts";
import { homeSecrets } from "../../security/secrets.ts";
import { commandPath } from "../../sinks/peers.ts";
import { FAMILIES } from "../../tools/families.ts";
import { type HostConfig, SHELL_DEFAULTS, type ShellSection } from "../config/mod.ts";
import { hostIds, runsAsRoot } from "./_root.ts";

/** The environment variable that carries the plan from the launcher to the served process. */
export const PLAN_ENV = "TOOLHOST_SANDBOX";

/** The system's directories shown read-only (where they exist; a symlink stays a symlink). */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

/**
 * Never shown, wherever they lie: the home's credentials (`~/` is the host's
 * home; the same names the file tools hide, `security/secrets.ts`) and the
 * system's.
 */
export const NEVER_VISIBLE: readonly string[] = Object.freeze([
  ...homeSecrets("~"),
  "/etc/ssl/private",
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
]);

/**
 * Work the plan out on this host (the launcher; or a process that may read
 * the system and the environment, as tests and `-A` runs do).
 *
 * @param config The configuration (its `shell` section and roots).
 * @returns The plan.
 */
export function computePlan(config: HostConfig): SandboxPlan {
  const shell = config.shell;
  const env = (name: string) => Deno.env.get(name);
  const hostHome = env("HOME") || "/";
  const roots = config.policy.roots;
  const home = hostHome === "/" || isInside(hostHome, roots) ? "/tmp/home" : hostHome;
  const path = [...(shell.path?.prepend ?? []).map((dir) => expand(dir, hostHome)), env("PATH")]
    .filter((part): part is string => Boolean(part)).join(":");
  const system = systemEntries();
  const toolchains = toolchainDirs(path, system, hostHome, roots);
  const bwrap = findBwrap(shell.bwrap ?? "auto");
  const bash = exists("/bin/bash") ? "/bin/bash" : "/bin/sh";
  return {
    bwrap: bwrap.path,
    ...(bwrap.reason !== undefined ? { reason: bwrap.reason } : {}),
    // The same shell inside the sandbox and, unconfined, outside it (the system is shown as it is).
    unconfined: shell.unconfined === true && bwrap.path === null ? bash : null,
    shell: bash,
    path,
    home,
    env: sandboxEnv(shell.env ?? {}, hostHome),
    system,
    toolchains,
    hidden: hiddenPaths([...NEVER_VISIBLE, ...(shell.hide ?? [])], hostHome, toolchains),
    network: shell.network === true,
    limits: { ...SHELL_DEFAULTS.limits, ...definedLimits(shell.limits) },
    programs: programsOn(path),
    timeoutS: timeLimits(shell.timeoutS, shell.maxTimeoutS),
    root: runsAsRoot(),
    ...hostIds(),
  };
}

/**
 * The plan: the launcher's (from {@linkcode PLAN_ENV}), or worked out here when this process may
 * read the system and the environment.
 *
 * @param config The configuration.
 * @returns The plan, and why it cannot be used when this process could not work it out.
 */
export function loadPlan(config: HostConfig): { plan: SandboxPlan; reason?: string } {
  const granted = (name: "env" | "read", value: string) =>
    Deno.permissions.querySync(name === "env" ? { name, variable: value } : { name, path: value })
      .state === "granted";
  if (granted("env", PLAN_ENV)) {
    const text = Deno.env.get(PLAN_ENV);
    if (text) return { plan: JSON.parse(text) as SandboxPlan };
  }
  const plan = computePlan(config);
  if (granted("env", "PATH") && granted("read", "/usr") && granted("read", "/etc")) return { plan };
  return {
    plan,
    reason:
      "this process was not started by the launcher, which works out what the sandbox shows " +
      '(start it with "toolhost start" or the command mcp-config prints)',
  };
}

/** The default and longest time limit: the default never above the longest. */
function timeLimits(
  configured: number | undefined,
  longest: number | undefined,
): { default: number; max: number } {
  const max = longest ?? Math.max(SHELL_DEFAULTS.maxTimeoutS, configured ?? 0);
  return { default: Math.min(configured ?? SHELL_DEFAULTS.timeoutS, max), max };
}

/** The configured limits, without the ones left unset. */
function definedLimits(limits: ShellSection["limits"]): Partial<SandboxLimits> {
  return Object.fromEntries(
    Object.entries(limits ?? {}).filter(([, value]) => value !== undefined),
  );
}

/** The system's view: each directory that exists, each merged-`/usr` symlink as a symlink. */
function systemEntries(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const path of SYSTEM) {
    try {
      const info = Deno.lstatSync(path);
      if (info.isSymlink) entries.push({ kind: "symlink", path, target: Deno.readLinkSync(path) });
      else if (info.isDirectory) entries.push({ kind: "dir", path });
    } catch {
      // Not on this system (lib32, libx32): nothing to show.
    }
  }
  return entries;
}

/**
 * The toolchains on the PATH outside the system: a `bin`, `sbin` or `shims`
 * directory brings its parent (pyenv's shims need `~/.pyenv`, a cargo or nvm
 * install its libraries), unless the parent is the home itself, `/`, or a
 * directory holding a root; nested ones collapse into the outer.
 */
function toolchainDirs(
  path: string,
  system: readonly SystemEntry[],
  home: string,
  roots: readonly string[],
): string[] {
  const systemDirs = system.flatMap((entry) => entry.kind === "dir" ? [entry.path] : []);
  const systemLinks = system.flatMap((entry) => entry.kind === "symlink" ? [entry.path] : []);
  const found = new Set<string>();
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/") || isInside(dir, systemDirs) || isInside(dir, systemLinks)) continue;
    if (isInside(dir, roots) || !isDirectory(dir)) continue;
    found.add(toolchainOf(posix.normalize(dir), home, roots));
  }
  // rustup's proxies in ~/.cargo/bin run the toolchains kept in ~/.rustup.
  if (found.has(posix.join(home, ".cargo")) && isDirectory(posix.join(home, ".rustup"))) {
    found.add(posix.join(home, ".rustup"));
  }
  const dirs = [...found].sort();
  return dirs.filter((dir) => !dirs.some((other) => other !== dir && isInside(dir, [other])));
}

/** The directory to show for one PATH directory. */
function toolchainOf(dir: string, home: string, roots: readonly string[]): string {
  const parent = posix.dirname(dir);
  const base = posix.basename(dir);
  const broad = parent === "/" || parent === home || posix.dirname(parent) === "/" ||
    posix.basename(parent) === ".local" || roots.some((root) => isInside(root, [parent]));
  return ["bin", "sbin", "shims"].includes(base) && !broad ? parent : dir;
}

/** The never-visible paths that exist, and `.env` files at the top of each toolchain. */
function hiddenPaths(
  listed: readonly string[],
  home: string,
  toolchains: readonly string[],
): HiddenPath[] {
  const candidates = [
    ...listed.map((path) => expand(path, home)),
    ...sshKeys(),
    ...toolchains.map((dir) => `${dir}/.env`),
  ];
  const hidden: HiddenPath[] = [];
  for (const path of new Set(candidates)) {
    try {
      const info = Deno.lstatSync(path);
      // A symlink is shown as a symlink: its target is hidden where it lies, or not there at all.
      if (!info.isSymlink) hidden.push({ path, dir: info.isDirectory });
    } catch {
      // Not there: nothing to hide.
    }
  }
  return hidden;
}

/** The host's ssh keys under `/etc/ssh`. */
function sshKeys(): string[] {
  try {
    return [...Deno.readDirSync("/etc/ssh")]
      .filter((entry) => entry.name.includes("key"))
      .map((entry) => `/etc/ssh/${entry.name}`);
  } catch {
    return []; // no ssh server here
  }
}

/** The environment inside: LANG and TERM from the host, and the configured variables. */
function sandboxEnv(
  configured: Readonly<Record<string, string>>,
  home: string,
): Record<string, string> {
  const env: Record<string, string> = {
    LANG: Deno.env.get("LANG") || "C.UTF-8",
    TERM: Deno.env.get("TERM") || "dumb",
  };
  for (const [name, value] of Object.entries(configured)) env[name] = expand(value, home);
  return env;
}

/**
 * `${VAR}` from the host's environment (empty when unset), and a leading `~/` as the home.
 *
 * @param value A configured value.
 * @param home The host's home directory.
 * @returns The value expanded.
 */
export function expand(value: string, home: string): string {
  const withVars = value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
    (_, name: string) => Deno.env.get(name) ?? "",
  );
  return withVars === "~" || withVars.startsWith("~/") ? `${home}${withVars.slice(1)}` : withVars;
}

/** bwrap as configured: `off`, a path, or `auto` (on the PATH). */
function findBwrap(setting: string): { path: string | null; reason?: string } {
  if (setting === "off") return { path: null, reason: 'switched off ("shell.bwrap": "off")' };
  if (setting !== "auto") {
    return exists(setting)
      ? { path: posix.resolve(setting) }
      : { path: null, reason: `"${setting}" does not exist` };
  }
  const found = commandPath("bwrap", "/", Deno.env.get("PATH") ?? "");
  if (found !== undefined) return { path: realPath(found) };
  return {
    path: null,
    reason: "bwrap was not found on the PATH (install bubblewrap: apt-get install bubblewrap)",
  };
}

/** The programs the tool families run, where the sandbox's PATH has them. */
function programsOn(path: string): Record<string, string> {
  const programs: Record<string, string> = {};
  for (const name of new Set(FAMILIES.flatMap((family) => family.runsPrograms ?? []))) {
    const found = commandPath(name, "/", path);
    if (found !== undefined) programs[name] = found;
  }
  return programs;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false; // missing or not visible: the same here
  }
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false; // missing: not on this host's PATH after all
  }
}

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path; // the spawn says why it does not run
  }
}
