/**
 * The policy: which roots the tools may touch, what is always hidden, and
 * the limits on what one call may read or return. Resolved once at start-up
 * into a frozen, fully defaulted value that is passed down, never global.
 *
 * @module
 */

import { globToRegExp } from "./glob.ts";
import {
  PROTECTED_PATHS,
  type ProtectedFile,
  protectedRegExp,
  type ProtectedRule,
} from "./protected.ts";

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
  /** Limits on one call. */
  limits?: Partial<Limits>;
  /** Allow regular files with more than one hard link (off by default). */
  allowHardlinks?: boolean;
  /** Globs to protect besides the fixed list (`protected.ts`). */
  protect?: readonly string[];
  /** Entries of the fixed list to lift (exactly as listed); only the user, from outside the roots. */
  unprotect?: readonly string[];
  /** Files the host reads as configuration: protected when they lie inside a root. */
  configFiles?: readonly string[];
  /** Create the state directory when missing (default true; the launcher only computes it). */
  createStateDir?: boolean;
}

/** Limits on one call. */
export interface Limits {
  /** The largest file `read_file` returns whole, in bytes. */
  readonly maxReadBytes: number;
  /** The most characters one reply may carry. */
  readonly maxOutputChars: number;
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
}

/** Default limits: no reply over 1 MB, nothing read whole over 1 MiB. */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxReadBytes: 1024 * 1024,
  maxOutputChars: 200_000,
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
  );
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new TypeError(`Cannot use limit "${key}": ${value} is not a positive integer`);
    }
  }
  const blacklist = [...ALWAYS_BLACKLISTED, ...(input.blacklist ?? [])];
  for (const glob of blacklist) globToRegExp(glob);
  return Object.freeze({
    roots: Object.freeze(roots),
    stateDir,
    blacklist: Object.freeze(blacklist),
    limits: Object.freeze(limits),
    allowHardlinks: input.allowHardlinks ?? false,
    protected: Object.freeze(protectedRules(input)),
    protectedFiles: Object.freeze(await protectedFiles(roots, stateDir, input.configFiles ?? [])),
  });
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

/** The state directory and the config files that lie inside a root, by real path. */
async function protectedFiles(
  roots: readonly string[],
  stateDir: string,
  configFiles: readonly string[],
): Promise<ProtectedFile[]> {
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  const files: ProtectedFile[] = [];
  if (inside(stateDir)) files.push({ path: stateDir, why: "toolhost's own state" });
  for (const file of configFiles) {
    const real = await realOrLexical(file);
    if (inside(real)) files.push({ path: real, why: "a configuration file toolhost reads" });
  }
  return files.map((file) => Object.freeze(file));
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

async function stateDirectory(path: string, create: boolean): Promise<string> {
  if (create) await Deno.mkdir(path, { recursive: true });
  return await realOrLexical(path);
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
      const slash = probe.lastIndexOf("/");
      if (slash <= 0) return path;
      missing.unshift(probe.slice(slash + 1));
      probe = probe.slice(0, slash);
    }
  }
}
