/**
 * The policy: which roots the tools may touch, what is always hidden, and
 * the limits on what one call may read or return. Resolved once at start-up
 * into a frozen, fully defaulted value that is passed down, never global.
 *
 * @module
 */

import { compileBlacklist } from "./blacklist.ts";
import { globToRegExp } from "./glob.ts";
import { SCAN_LIMIT, scanRoots } from "./project_scan.ts";
import {
  compileProtection,
  PROTECTED_PATHS,
  type ProtectedFile,
  protectedRegExp,
  type ProtectedRule,
} from "./protected.ts";
import { homeSecrets, secretNames } from "./secrets.ts";

/**
 * Names that are always hidden, whatever the config says: seed 001's history
 * files, and the temp files of atomic writes (left behind only when a process
 * is killed mid-write).
 */
export const ALWAYS_BLACKLISTED: readonly string[] = Object.freeze([
  "history.toml",
  "*_history.toml",
  "*.toolhost-tmp",
]);

/** The name of the state directory made under the first root by default. */
export const STATE_DIR_NAME = ".toolhost";

/** Loose policy input, as it comes from `toolhost.json` or the CLI. */
export interface PolicyInput {
  /** Project directories; the first is the primary root for relative paths. */
  roots?: readonly string[];
  /** Where the host keeps its own state; `.toolhost` under the first root by default. */
  stateDir?: string;
  /** Extra globs to hide (a glob without `/` matches any path segment). */
  blacklist?: readonly string[];
  /** Secret names to show after all (`secrets.ts`), exactly as listed; only the user, from outside the roots. */
  unhide?: readonly string[];
  /** The user's home: its own secrets (`~/.env`, `~/.npmrc`…) are hidden where a root holds them. */
  home?: string;
  /**
   * Walk the roots for where protected links lead and which hidden entries
   * lie below their tops (`project_scan.ts`; default true; the launcher,
   * which only computes the command line, skips it).
   */
  scan?: boolean;
  /** Limits on one call. */
  limits?: Partial<Limits>;
  /** Allow regular files with more than one hard link (off by default). */
  allowHardlinks?: boolean;
  /** Globs to protect besides the fixed list (`protected.ts`). */
  protect?: readonly string[];
  /** Entries of the fixed list to lift (exactly as listed); only the user, from outside the roots. */
  unprotect?: readonly string[];
  /**
   * Files to protect by path when they lie inside a root (judged on real
   * paths; they need not exist yet): the host's configuration, the programs
   * its configured servers run, its own code.
   */
  protectedFiles?: readonly ProtectedFile[];
  /** Create the state directory when missing (default true; the launcher only computes it). */
  createStateDir?: boolean;
  /**
   * Where a shell command's writes wait before they are merged into the
   * roots (`sandbox_overlay.ts`): outside every root (overlayfs refuses an
   * upper directory inside its lower one). None: commands write the roots
   * directly.
   */
  scratchDir?: string;
}

/** Limits on one call. */
export interface Limits {
  /** The largest file `read_file` returns whole, in bytes. */
  readonly maxReadBytes: number;
  /**
   * The largest reply, in bytes of its JSON (text, structured content,
   * `_meta` and notices together); larger replies are cut with a note.
   */
  readonly maxOutputChars: number;
  /** The largest request the host reads, in bytes of its JSON line; larger ones are refused. */
  readonly maxRequestBytes: number;
  /** The largest file a content search reads, in bytes. */
  readonly maxSearchFileBytes: number;
  /** The largest file slice and edit tools load, in bytes. */
  readonly maxEditBytes: number;
}

/** The resolved, frozen policy. Plain data: it crosses into the tool worker. */
export interface Policy {
  /** Real paths of the roots, the primary first. */
  readonly roots: readonly string[];
  /** Real path of the state directory (always blacklisted). */
  readonly stateDir: string;
  /** Every blacklist glob in force, the fixed ones first. */
  readonly blacklist: readonly string[];
  /** Limits on one call. */
  readonly limits: Limits;
  /** Whether files with more than one hard link may be used. */
  readonly allowHardlinks: boolean;
  /** Protected globs in force (the fixed list, less what was lifted, plus the configured ones). */
  readonly protected: readonly ProtectedRule[];
  /** Protected files by path: the state directory and config files inside a root. */
  readonly protectedFiles: readonly ProtectedFile[];
  /** Files and directories hidden by path, like the blacklist: the home's secrets where a root holds the home. */
  readonly hiddenFiles: readonly string[];
  /**
   * The hidden entries of the roots found at start (absolute; not what lies
   * beneath one): the sandbox mounts an empty file or directory over each.
   */
  readonly hiddenEntries: readonly { readonly path: string; readonly dir: boolean }[];
  /** The start-up walk: how many entries it looked at, and whether it stopped at its bound. */
  readonly scan: { readonly entries: number; readonly truncated: boolean };
  /**
   * Where shell commands' writes wait to be merged (outside every root,
   * mode 0700), or why there is no such place.
   */
  readonly scratch: { readonly dir: string } | { readonly dir: null; readonly reason: string };
}

/** Default limits: no reply over 1 MB, nothing read whole over 1 MiB. */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxReadBytes: 1024 * 1024,
  maxOutputChars: 200_000,
  maxRequestBytes: 4 * 1024 * 1024,
  maxSearchFileBytes: 8 * 1024 * 1024,
  maxEditBytes: 64 * 1024 * 1024,
});

/**
 * Resolve a loose policy input into a frozen policy. Roots must exist and be
 * directories; their real paths (symlinks followed) are what the policy keeps.
 * The state directory is created when missing.
 *
 * @param input The loose input; with no roots, the current directory.
 * @returns The frozen policy.
 * @throws {TypeError} When a root does not exist or is not a directory, or a limit is not positive.
 * @example
 * ```ts
 * const policy = await resolvePolicy({ roots: ["."] });
 * ```
 */
export async function resolvePolicy(input: PolicyInput = {}): Promise<Policy> {
  const raw = input.roots && input.roots.length > 0 ? input.roots : [Deno.cwd()];
  const roots: string[] = [];
  for (const root of raw) {
    const real = await realDirectory(root);
    if (!roots.includes(real)) roots.push(real);
  }
  const stateDir = await stateDirectory(
    input.stateDir ?? `${roots[0]}/${STATE_DIR_NAME}`,
    input.createStateDir ?? true,
    roots,
  );
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new TypeError(`Cannot use limit "${key}": ${value} is not a positive integer`);
    }
  }
  const blacklist = [
    ...ALWAYS_BLACKLISTED,
    ...secretNames(input.unhide),
    ...(input.blacklist ?? []),
  ];
  for (const glob of blacklist) globToRegExp(glob);
  const rules = protectedRules(input);
  const hiddenFiles = input.home
    ? await insideRoots(homeSecrets(input.home, input.unhide), roots)
    : [];
  const scan = input.scan === false
    ? { linkTargets: [], hidden: [], entries: 0, truncated: false }
    : scanRoots(roots, scanRules(rules, blacklist, stateDir));
  const files = await protectedFiles(roots, stateDir, [
    ...(input.protectedFiles ?? []),
    ...scan.linkTargets,
  ]);
  return Object.freeze({
    roots: Object.freeze(roots),
    stateDir,
    blacklist: Object.freeze(blacklist),
    limits: Object.freeze(limits),
    allowHardlinks: input.allowHardlinks ?? false,
    protected: Object.freeze(rules),
    protectedFiles: Object.freeze(files),
    hiddenFiles: Object.freeze(hiddenFiles),
    hiddenEntries: Object.freeze(scan.hidden.map((each) => Object.freeze(each))),
    scan: Object.freeze({ entries: scan.entries, truncated: scan.truncated }),
    scratch: Object.freeze(await scratchDirectory(input, roots, stateDir)),
  });
}

/** The scratch directory: outside every root and the state directory, made (mode 0700) when asked. */
async function scratchDirectory(
  input: PolicyInput,
  roots: readonly string[],
  stateDir: string,
): Promise<Policy["scratch"]> {
  if (input.scratchDir === undefined) {
    return { dir: null, reason: "no place for it was given (neither XDG_CACHE_HOME nor HOME)" };
  }
  const dir = await realOrLexical(input.scratchDir);
  const clash = [...roots, stateDir].find((each) => isInside(dir, [each]) || isInside(each, [dir]));
  if (clash !== undefined) {
    return {
      dir: null,
      reason: `${dir} and "${clash}" hold one another (set XDG_CACHE_HOME outside the roots)`,
    };
  }
  if (input.createStateDir ?? true) {
    try {
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      return { dir: null, reason: `${dir} cannot be made: ${(error as Error).message}` };
    }
  }
  return { dir };
}

/** How the start-up walk judges names: the protected globs, and the blacklist. */
function scanRules(
  rules: readonly ProtectedRule[],
  blacklist: readonly string[],
  stateDir: string,
): Parameters<typeof scanRoots>[1] {
  const protection = compileProtection(rules);
  const hidden = compileBlacklist(blacklist);
  return {
    protectedWhy: (relative) => protection.why("", relative),
    // The walk enters no hidden directory: each entry's own name and path are all there is to test.
    hidden: (relative) => hidden.matchEntry(relative) !== undefined,
    skip: stateDir,
    limit: SCAN_LIMIT,
  };
}

/** The paths (real, or as written when missing) that lie inside a root. */
async function insideRoots(paths: readonly string[], roots: readonly string[]): Promise<string[]> {
  const inside: string[] = [];
  for (const path of paths) {
    const real = await realOrLexical(path);
    if (isInside(real, roots) && !inside.includes(real)) inside.push(real);
  }
  return inside;
}

/**
 * The protected globs: the fixed list less the lifted entries, plus the
 * configured ones.
 *
 * @throws {TypeError} When a lifted entry is not in the fixed list, or a glob does not compile.
 */
function protectedRules(input: PolicyInput): ProtectedRule[] {
  const lifted = new Set(input.unprotect ?? []);
  for (const glob of lifted) {
    if (!PROTECTED_PATHS.some((rule) => rule.glob === glob)) {
      throw new TypeError(
        `Cannot lift "${glob}": it is not a protected path (they are ${
          PROTECTED_PATHS.map((rule) => rule.glob).join(", ")
        })`,
      );
    }
  }
  const added = (input.protect ?? []).map((glob) => {
    try {
      protectedRegExp(glob);
    } catch (error) {
      throw new TypeError(`Cannot protect "${glob}": ${(error as Error).message}`);
    }
    return Object.freeze({ glob, why: "protected by the configuration" });
  });
  return [...PROTECTED_PATHS.filter((rule) => !lifted.has(rule.glob)), ...added];
}

/**
 * What the host's tool workers write: the roots, the state directory, and
 * the scratch directory where shell commands' writes wait to be merged.
 *
 * @param policy The policy.
 * @returns Absolute paths.
 */
export function writablePaths(policy: Policy): string[] {
  return [
    ...policy.roots,
    policy.stateDir,
    ...(policy.scratch.dir !== null ? [policy.scratch.dir] : []),
  ];
}

/**
 * Whether an absolute path is one of the roots or lies beneath one.
 *
 * @param path An absolute path (real, for a decision that holds).
 * @param roots The roots (real paths).
 * @returns True when inside.
 */
export function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) =>
    path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)
  );
}

/**
 * What is protected by path, by real path, inside the roots: the state
 * directory, the given files (the host's configuration, the programs its
 * servers run, where protected links lead), and the hooks directory
 * `core.hooksPath` names.
 */
async function protectedFiles(
  roots: readonly string[],
  stateDir: string,
  candidates: readonly ProtectedFile[],
): Promise<ProtectedFile[]> {
  const files: ProtectedFile[] = [];
  const add = async (path: string, why: string) => {
    const real = await realOrLexical(path);
    if (isInside(real, roots) && !files.some((file) => file.path === real)) {
      files.push(Object.freeze({ path: real, why }));
    }
  };
  await add(stateDir, "toolhost's own state");
  for (const file of candidates) await add(file.path, file.why);
  for (const root of roots) {
    const hooks = await hooksPath(root);
    if (hooks !== undefined) await add(hooks, "git runs the hooks core.hooksPath names");
  }
  return files;
}

/** The directory `core.hooksPath` in a root's `.git/config` names, if any. */
async function hooksPath(root: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${root}/.git/config`);
  } catch {
    // No readable `.git/config`: git reads none either, so no hooks path to protect.
    return undefined;
  }
  const core = /^\s*\[core\]([\s\S]*?)(?=^\s*\[|(?![\s\S]))/im.exec(text)?.[1] ?? "";
  const value = /^\s*hookspath\s*=\s*(.*?)\s*$/im.exec(core)?.[1]?.replace(/^"(.*)"$/, "$1");
  if (!value || value.startsWith("~")) return undefined;
  return value.startsWith("/") ? value : `${root}/${value}`;
}

async function realDirectory(path: string): Promise<string> {
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch {
    throw new TypeError(`Cannot use root "${path}": it does not exist`);
  }
  if (!(await Deno.stat(real)).isDirectory) {
    throw new TypeError(`Cannot use root "${path}": it is not a directory`);
  }
  return real;
}

async function stateDirectory(
  path: string,
  create: boolean,
  roots: readonly string[],
): Promise<string> {
  const root = roots.find((each) => isInside(path, [each]) && path !== each);
  if (root) await refuseLinkedState(root, path);
  if (create) await Deno.mkdir(path, { recursive: true });
  return await realOrLexical(path);
}

/**
 * Refuse a state directory inside a root that is reached through a link: a
 * repository can ship `.toolhost` as a link, and the host would then keep
 * its state, and be granted to write, wherever it points.
 *
 * @throws {TypeError} When a name on the way from the root to the state directory is a link.
 */
async function refuseLinkedState(root: string, path: string): Promise<void> {
  let at = root;
  for (const name of path.slice(root.length).split("/").filter(Boolean)) {
    at = `${at}/${name}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(at);
    } catch {
      return; // Not there yet: the host makes it, a folder.
    }
    if (info.isSymlink) {
      const target = await Deno.readLink(at).catch(() => "?");
      throw new TypeError(
        `Cannot keep toolhost's state in "${path}": "${at}" is a link (to "${target}"), and a ` +
          `project's files may not send the host's state outside it; remove the link (toolhost ` +
          `makes the folder), or set "stateDir" in your own configuration`,
      );
    }
  }
}

/**
 * The real path of a path that may not exist yet: its nearest existing
 * ancestor's real path, with the missing names after it.
 */
async function realOrLexical(path: string): Promise<string> {
  const missing: string[] = [];
  let probe = path;
  for (;;) {
    try {
      const real = await Deno.realPath(probe);
      return [real === "/" ? "" : real, ...missing].join("/") || "/";
    } catch {
      // Missing (or unreadable): its parent decides; the names below it stay lexical.
      const slash = probe.lastIndexOf("/");
      if (slash <= 0) return path;
      missing.unshift(probe.slice(slash + 1));
      probe = probe.slice(0, slash);
    }
  }
}
