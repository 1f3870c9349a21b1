/**
 * The policy: which roots the tools may touch, what is always hidden, and
 * the limits on what one call may read or return. Resolved once at start-up
 * into a frozen, fully defaulted value that is passed down, never global.
 *
 * @module
 */

import { compileBlacklist } from "./blacklist.ts";
import { globToRegExp } from "./glob.ts";
import { insideRoots, realDirectory, scratchDirectory, stateDirectory } from "./policy_paths.ts";
import { protectedFiles, protectedRules } from "./policy_protected.ts";
import { SCAN_LIMIT, scanRoots } from "./project_scan.ts";
import { compileProtection, type ProtectedFile, type ProtectedRule } from "./protected.ts";
import { homeSecrets, secretNames } from "./secrets.ts";

export { isInside } from "./policy_paths.ts";

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
    scratch: Object.freeze(
      await scratchDirectory(
        { scratchDir: input.scratchDir, create: input.createStateDir ?? true },
        roots,
        stateDir,
      ),
    ),
  });
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
