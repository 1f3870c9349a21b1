/**
 * Landlock: the kernel's own path confinement, applied to the tool worker's
 * thread before any tool runs. Where the kernel supports it (Linux 5.13+),
 * a file outside the roots cannot be opened, created, renamed or removed by
 * that thread however the path was swapped: the kernel checks the real
 * inode hierarchy, not the path string. This closes the check-to-use window
 * that Deno's path APIs leave open (see `anchored.ts`).
 *
 * Deno runs synchronous file operations on the calling thread, so the tool
 * worker does its file I/O synchronously (`safe_fs.ts`). The worker gets FFI
 * for libc only long enough to set this up, then revokes it; what it loaded
 * before stays callable: `sched_yield` for its polls and, once confined, the
 * reads' own calls (`native_fs.ts`).
 *
 * @module
 */

/** What confinement achieved. */
export interface LandlockStatus {
  /** Whether the thread is confined. */
  active: boolean;
  /** The kernel's Landlock ABI version (0 when unsupported). */
  abi: number;
  /** Why it is not active, when it is not. */
  reason?: string;
  /**
   * Whether the confined worker's reads call libc directly (`native_fs.ts`);
   * otherwise they go through Deno's file calls.
   */
  nativeReads?: boolean;
}

/** Paths the confined thread may use. */
export interface LandlockPaths {
  /** Directories to read, write, create and remove beneath. */
  readWrite: readonly string[];
  /** Files or directories to read only. */
  readOnly: readonly string[];
}

const SYS_CREATE_RULESET = 444n;
const SYS_ADD_RULE = 445n;
const SYS_RESTRICT_SELF = 446n;
const CREATE_RULESET_VERSION = 1;
const RULE_PATH_BENEATH = 1n;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;

const FS = {
  WRITE_FILE: 1n << 1n,
  READ_FILE: 1n << 2n,
  READ_DIR: 1n << 3n,
  REMOVE_DIR: 1n << 4n,
  REMOVE_FILE: 1n << 5n,
  MAKE_CHAR: 1n << 6n,
  MAKE_DIR: 1n << 7n,
  MAKE_REG: 1n << 8n,
  MAKE_SOCK: 1n << 9n,
  MAKE_FIFO: 1n << 10n,
  MAKE_BLOCK: 1n << 11n,
  MAKE_SYM: 1n << 12n,
  REFER: 1n << 13n,
  TRUNCATE: 1n << 14n,
  IOCTL_DEV: 1n << 15n,
} as const;

/** Where libc is on the usual Linux layouts. */
export const LIBC_CANDIDATES: readonly string[] = Object.freeze([
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/usr/lib/x86_64-linux-gnu/libc.so.6",
  "/lib/aarch64-linux-gnu/libc.so.6",
  "/usr/lib/aarch64-linux-gnu/libc.so.6",
  "/lib64/libc.so.6",
  "/usr/lib64/libc.so.6",
  "/lib/libc.so.6",
]);

/**
 * The libc to use for Landlock, or null (not Linux, or not found).
 *
 * @returns Its absolute path.
 */
export function findLibc(): string | null {
  if (Deno.build.os !== "linux") return null;
  for (const candidate of LIBC_CANDIDATES) {
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch (error) {
      // The served process may not read outside its roots, but it may load the libc that the
      // launcher found and named in --allow-ffi.
      if (
        error instanceof Deno.errors.NotCapable &&
        Deno.permissions.querySync({ name: "ffi", path: candidate }).state === "granted"
      ) {
        return candidate;
      }
      // Otherwise not there or not usable: try the next one (with none left, null: the caller
      // runs without Landlock and reports why, as on a kernel without it).
    }
  }
  return null;
}

/**
 * What a program started from a confined thread needs to read to start at
 * all: the binary, the dynamic loader's cache and the system library
 * directories (read-only; the program stays confined to the roots otherwise).
 *
 * @param binary The program's absolute path.
 * @param libc Where libc is (its directory holds the other libraries).
 * @returns The paths to allow read-only.
 */
export function programPaths(binary: string, libc: string): string[] {
  const libDir = libc.slice(0, libc.lastIndexOf("/"));
  return [binary, "/etc/ld.so.cache", libDir, "/lib64", "/usr/lib64"];
}

/** The libc functions that confinement calls (`syscall` under three signatures). */
const LIBC_SYMBOLS = {
  create: { name: "syscall", parameters: ["i64", "buffer", "usize", "u32"], result: "i64" },
  addRule: { name: "syscall", parameters: ["i64", "i64", "i64", "buffer", "u32"], result: "i64" },
  restrict: { name: "syscall", parameters: ["i64", "i64", "u32"], result: "i64" },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const satisfies Deno.ForeignLibraryInterface;

/** Those functions, loaded. */
type Libc = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"];

/**
 * Confine the calling thread with Landlock.
 *
 * @param libc The path of libc (the caller has FFI permission for it).
 * @param paths What stays reachable.
 * @returns Whether it worked, and why not.
 */
export function confineThread(libc: string, paths: LandlockPaths): LandlockStatus {
  let lib: Deno.DynamicLibrary<typeof LIBC_SYMBOLS>;
  try {
    lib = Deno.dlopen(libc, LIBC_SYMBOLS);
  } catch (error) {
    return { active: false, abi: 0, reason: `cannot load libc: ${(error as Error).message}` };
  }
  const opened: number[] = [];
  try {
    return restrictSelf(lib.symbols, paths, opened);
  } finally {
    for (const fd of opened) lib.symbols.close(fd);
    lib.close();
  }
}

/**
 * Build the ruleset and restrict this thread to it. Every descriptor it
 * opens goes into `opened`, for the caller to close whatever happens.
 */
function restrictSelf(fns: Libc, paths: LandlockPaths, opened: number[]): LandlockStatus {
  const abi = Number(fns.create(SYS_CREATE_RULESET, null, 0n, CREATE_RULESET_VERSION));
  if (abi < 1) {
    return { active: false, abi: 0, reason: `the kernel has no Landlock (errno ${errno(fns)})` };
  }
  const handled = handledRights(abi);
  const attr = new BigUint64Array([handled]);
  const ruleset = Number(fns.create(SYS_CREATE_RULESET, new Uint8Array(attr.buffer), 8n, 0));
  if (ruleset < 0) {
    return { active: false, abi, reason: `landlock_create_ruleset failed (errno ${errno(fns)})` };
  }
  opened.push(ruleset);
  const refused = addPathRules(fns, ruleset, pathRights(paths, handled), opened);
  if (refused !== undefined) return { active: false, abi, reason: refused };
  if (fns.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) < 0) {
    return { active: false, abi, reason: `prctl(NO_NEW_PRIVS) failed (errno ${errno(fns)})` };
  }
  if (fns.restrict(SYS_RESTRICT_SELF, BigInt(ruleset), 0) < 0n) {
    return { active: false, abi, reason: `landlock_restrict_self failed (errno ${errno(fns)})` };
  }
  return { active: true, abi };
}

/** Each allowed path with its rights, read-write directories first. */
function pathRights(paths: LandlockPaths, handled: bigint): Array<[string, bigint]> {
  // MAKE_SYM: a shell command's links are renamed into the roots when its writes are merged.
  const dirRights = handled &
    (FS.READ_FILE | FS.READ_DIR | FS.WRITE_FILE | FS.REMOVE_DIR | FS.REMOVE_FILE | FS.MAKE_DIR |
      FS.MAKE_REG | FS.MAKE_SYM | FS.REFER | FS.TRUNCATE);
  const readRights = handled & (FS.READ_FILE | FS.READ_DIR);
  return [
    ...paths.readWrite.map((path): [string, bigint] => [path, dirRights]),
    ...paths.readOnly.map((path): [string, bigint] => [path, readRights]),
  ];
}

/**
 * Add a rule for each path that exists (its `O_PATH` descriptor goes into
 * `opened`).
 *
 * @returns Why a rule was refused, or `undefined` when all were added.
 */
function addPathRules(
  fns: Libc,
  ruleset: number,
  rules: ReadonlyArray<[string, bigint]>,
  opened: number[],
): string | undefined {
  for (const [path, rights] of rules) {
    const fd = fns.open(cString(path), O_PATH | O_CLOEXEC);
    if (fd < 0) continue; // a missing optional path: nothing to allow
    opened.push(fd);
    // Directory rights on a file are refused (EINVAL): then allow what applies to a file.
    const fileRights = rights & (FS.READ_FILE | FS.WRITE_FILE | FS.TRUNCATE);
    if (!addRule(fns, ruleset, fd, rights) && !addRule(fns, ruleset, fd, fileRights)) {
      return `landlock_add_rule failed for "${path}" (errno ${errno(fns)})`;
    }
  }
  return undefined;
}

/** One `landlock_add_rule` for a path beneath `fd`; false when the kernel refused it. */
function addRule(fns: Libc, ruleset: number, fd: number, allowed: bigint): boolean {
  const rule = new Uint8Array(12);
  const view = new DataView(rule.buffer);
  view.setBigUint64(0, allowed, true);
  view.setInt32(8, fd, true);
  return fns.addRule(SYS_ADD_RULE, BigInt(ruleset), RULE_PATH_BENEATH, rule, 0) >= 0n;
}

/** The `errno` the last failed libc call left on this thread. */
function errno(fns: Libc): number {
  return new Deno.UnsafePointerView(fns.__errno_location()!).getInt32();
}

/** Every filesystem right the kernel's ABI knows (so that all of them are restricted). */
function handledRights(abi: number): bigint {
  let rights = FS.WRITE_FILE | FS.READ_FILE | FS.READ_DIR | FS.REMOVE_DIR | FS.REMOVE_FILE |
    FS.MAKE_CHAR |
    FS.MAKE_DIR | FS.MAKE_REG | FS.MAKE_SOCK | FS.MAKE_FIFO | FS.MAKE_BLOCK | FS.MAKE_SYM;
  if (abi >= 2) rights |= FS.REFER;
  if (abi >= 3) rights |= FS.TRUNCATE;
  if (abi >= 5) rights |= FS.IOCTL_DEV;
  return rights;
}

function cString(value: string): Uint8Array {
  return new TextEncoder().encode(`${value}\0`);
}
