/**
 * One walk over the roots at start-up, for what a name alone does not tell:
 *
 * - where protected names that are symbolic links lead: a link at
 *   `.git/hooks/pre-commit` (or `.vscode/tasks.json`) that points at
 *   `scripts/pre-commit` makes git (or the editor) run that file, so the
 *   target is protected too, under its own name;
 * - the hidden entries at any depth of a root (secret names, blacklisted
 *   globs): the file tools judge every path by name, but a shell command or
 *   a sandboxed server sees the tree as it is, so the sandbox mounts over
 *   each one found.
 *
 * The walk never follows a link, reads no file's content (names and link
 * targets only), skips what git's object store holds and the state
 * directory, and stops after a bound of entries (the result says so). Hard
 * links need no walk: every write is a new file renamed into place (the
 * tools' atomic writes, the shell's merged overlay), so a protected name
 * hard-linked to a file keeps its content whatever is written to the other.
 *
 * @module
 */

/** What the walk found. */
export interface ScanResult {
  /** Targets of protected names that are links, inside a root (real paths), with why. */
  readonly linkTargets: Array<{ path: string; why: string }>;
  /** Hidden entries (absolute, as found; not what lies beneath one), with whether each is a directory. */
  readonly hidden: Array<{ path: string; dir: boolean }>;
  /** How many entries were looked at. */
  readonly entries: number;
  /** Whether the walk stopped at its bound before the end. */
  readonly truncated: boolean;
}

/** What the walk judges names by. */
export interface ScanRules {
  /** Why a root-relative path is protected by name, or `undefined`. */
  protectedWhy(relative: string): string | undefined;
  /** Whether a root-relative path is hidden (blacklist, secret names). */
  hidden(relative: string): boolean;
  /** A directory never walked (the state directory). */
  skip: string;
  /** The most entries looked at. */
  limit: number;
}

/** The entries looked at by default: a large monorepo's tree, in well under a second. */
export const SCAN_LIMIT = 300_000;

/** Inside a git directory, what holds only git's data: never walked. */
const GIT_DATA = new Set(["objects", "refs", "logs", "lfs", "rr-cache", "reftable"]);

/**
 * Walk the roots.
 *
 * @param roots The roots (real paths).
 * @param rules How names are judged, what to skip, and the bound.
 * @returns What was found.
 */
export function scanRoots(roots: readonly string[], rules: ScanRules): ScanResult {
  const result = { linkTargets: [], hidden: [], entries: 0, truncated: false } as {
    linkTargets: ScanResult["linkTargets"];
    hidden: ScanResult["hidden"];
    entries: number;
    truncated: boolean;
  };
  for (const root of roots) {
    const stack: string[] = [""];
    while (stack.length > 0) {
      const relative = stack.pop()!;
      const dir = relative === "" ? root : `${root}/${relative}`;
      if (dir === rules.skip) continue;
      for (const entry of entriesOf(dir)) {
        if (++result.entries > rules.limit) {
          result.truncated = true;
          return result;
        }
        const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
        const path = `${root}/${rel}`;
        if (rules.hidden(rel)) {
          result.hidden.push({ path, dir: entry.isDirectory });
          continue;
        }
        if (entry.isSymlink) {
          const why = rules.protectedWhy(rel);
          const target = why === undefined ? undefined : realPath(path);
          if (target !== undefined && target !== path && isInside(target, roots)) {
            result.linkTargets.push({ path: target, why: `"${rel}" links to it: ${why}` });
          }
        } else if (entry.isDirectory && !gitData(relative, entry.name)) {
          stack.push(rel);
        }
      }
    }
  }
  return result;
}

/**
 * Whether a directory holds only git's data (objects, refs, logs…): it lies
 * in a git directory (a repository's, or a submodule's within it).
 */
function gitData(parent: string, name: string): boolean {
  return GIT_DATA.has(name.toLowerCase()) && `/${parent.toLowerCase()}/`.includes("/.git/");
}

/** A directory's entries, none when it cannot be read. */
function entriesOf(dir: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(dir)];
  } catch {
    return []; // gone or unreadable meanwhile: nothing there to judge
  }
}

/**
 * Where a link leads: its real target, or, when that does not exist (yet),
 * where it would be, against the link's real directory; `undefined` when
 * neither can be told.
 */
function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    // Dangling: the file it names may be created later, under its own name.
  }
  try {
    const target = Deno.readLinkSync(path);
    const dir = Deno.realPathSync(path.slice(0, path.lastIndexOf("/")) || "/");
    return followed(target.startsWith("/") ? "/" : dir, target.split("/"));
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Where a path leads as the kernel walks it: component by component from a
 * real directory, each link met followed (so a `..` after one goes up from
 * where it leads); from the first missing component on, as written.
 */
function followed(start: string, parts: readonly string[]): string {
  let at = start;
  for (const [i, part] of parts.entries()) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      at = at.slice(0, at.lastIndexOf("/")) || "/";
      continue;
    }
    const next = at === "/" ? `/${part}` : `${at}/${part}`;
    try {
      at = Deno.realPathSync(next);
    } catch {
      const rest = parts.slice(i + 1).filter((each) => each !== "" && each !== ".");
      return [next, ...rest].join("/").replace(/\/[^/]+\/\.\.(?=\/|$)/g, "");
    }
  }
  return at;
}

function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}
