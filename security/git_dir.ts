/**
 * Inside a git directory, by allowlist: what git writes to record work may
 * be written; everything else is protected. git obeys much of what a `.git`
 * directory holds without asking — `config` (`core.fsmonitor`,
 * `core.sshCommand`, aliases), `hooks/`, `commondir` (which names another
 * directory as the repository's, config and hooks included), `info/`,
 * `objects/info/alternates`, the git directories of submodules
 * (`modules/<name>/`) and of linked worktrees (`worktrees/<id>/gitdir`,
 * `commondir`) — and a list of such names keeps missing one. So the list
 * here is of what may be written, and it holds for every git directory in a
 * root: the top one, a nested repository's, a submodule's
 * (`.git/modules/<name>/`) and a linked worktree's (`.git/worktrees/<id>/`).
 *
 * Where the names come from: gitrepository-layout(5) (git 2.39–2.45, "Git
 * Repository Layout": `objects` and its loose-object, `pack` and `info`
 * entries, `refs`, `packed-refs`, `HEAD`, `index`, `sharedindex.<SHA-1>`,
 * `logs`, `shallow`, `reftable`), gitrevisions(7) (the pseudo-refs
 * `FETCH_HEAD`, `ORIG_HEAD`, `MERGE_HEAD`, `REBASE_HEAD`, `CHERRY_PICK_HEAD`,
 * `REVERT_HEAD`, `BISECT_HEAD`, `AUTO_MERGE`), and the state git keeps while
 * a command is under way: git-commit(1)'s `COMMIT_EDITMSG`, git-merge(1)'s
 * `MERGE_MSG`, `MERGE_MODE` and `SQUASH_MSG`, git-tag(1)'s `TAG_EDITMSG`,
 * git-rebase(1)'s `rebase-merge/` and `rebase-apply/`, the sequencer's
 * `sequencer/` (cherry-pick, revert), git-rerere(1)'s `rr-cache/` and
 * `MERGE_RR`, git-bisect(1)'s `BISECT_*` files, git-gc(1)'s `gc.pid` and
 * `gc.log`, and the `<name>.lock` file git writes before renaming it onto
 * `<name>`. Of the layout's other entries, `config`, `config.worktree`,
 * `hooks`, `info` (`exclude`, `attributes`, `grafts`, `sparse-checkout`),
 * `commondir`, `modules`, `worktrees`, `branches`, `remotes` and
 * `description` are not work git records: they configure it, and stay
 * protected; inside `objects`, `info/alternates` and `info/http-alternates`
 * point git at other object stores, and are protected too.
 *
 * Names are compared without regard to case, as the protected globs are (a
 * case-insensitive file system opens `.git/CONFIG` for `.git/config`).
 *
 * @module
 */

/** Why a path inside a git directory is protected. */
export const GIT_DIRECTORY_WHY =
  "inside .git only what git writes to record work (objects, refs, logs, the index, HEAD, …) may be written; config, hooks, commondir, info and the like make git run commands";

/** Why the `.git` entry itself is protected. */
export const GIT_ENTRY_WHY =
  "git follows a .git file or directory to its config and hooks (a .git file names another directory as the repository)";

/** Directories git records work in: everything beneath them may be written. */
const WORK_DIRS = new Set([
  "refs",
  "logs",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "rr-cache",
  "reftable",
]);

/** Files git records work in, at the top of a git directory. */
const WORK_FILES = new Set([
  "head",
  "index",
  "packed-refs",
  "shallow",
  "commit_editmsg",
  "tag_editmsg",
  "merge_msg",
  "merge_mode",
  "merge_rr",
  "squash_msg",
  "auto_merge",
  "gc.pid",
  "gc.log",
]);

/** Pseudo-refs (`ORIG_HEAD`, …), bisect state and split-index files. */
const WORK_PATTERN = /^(?:[a-z_]+_head|bisect_[a-z_]+|sharedindex\.[0-9a-f]{40,64})$/;

/**
 * Names that begin a git directory's content (gitrepository-layout(5)):
 * where a submodule's name may end.
 */
const LAYOUT_NAMES = new Set([
  "objects",
  "config",
  "config.worktree",
  "hooks",
  "info",
  "commondir",
  "modules",
  "worktrees",
  "branches",
  "remotes",
  "description",
  "gitdir",
]);

/** Inside `objects`, the files that point git at other object stores. */
const OBJECT_POINTERS = new Set(["info/alternates", "info/http-alternates"]);

/**
 * Whether a path inside a git directory is work git records: the segments
 * after its `.git` (or after a submodule's or worktree's git directory).
 *
 * @param segments The path's segments below the git directory, lower-cased.
 * @returns True when it may be written.
 */
function isWork(segments: readonly string[]): boolean {
  const [first, ...rest] = segments;
  if (first === undefined) return false;
  if (first === "objects") return !OBJECT_POINTERS.has(rest.join("/"));
  if (WORK_DIRS.has(first)) return true;
  if (rest.length > 0) return false;
  const name = first.endsWith(".lock") ? first.slice(0, -5) : first;
  return WORK_FILES.has(name) || WORK_PATTERN.test(name);
}

/**
 * Why a path relative to its root is protected as part of a git directory,
 * or `undefined` when it is not in one or is work git records there. The
 * first `.git` segment starts the git directory; beneath it, a submodule's
 * git directory is `modules/<name>/` (a name may hold slashes, so each
 * place git's layout could begin is judged, and all must allow the path)
 * and a linked worktree's is `worktrees/<id>/`.
 *
 * @param relative A path relative to its root, `/`-separated.
 * @returns The reason it is protected.
 */
export function gitDirectoryWhy(relative: string): string | undefined {
  const segments = relative.toLowerCase().split("/");
  const at = segments.indexOf(".git");
  if (at < 0) return undefined;
  const inside = segments.slice(at + 1);
  if (inside.length === 0) return GIT_ENTRY_WHY;
  return isWorkWithin(inside) ? undefined : GIT_DIRECTORY_WHY;
}

/**
 * Whether a path below a git directory is work git records, reading through
 * the git directories nested in it: a linked worktree's (`worktrees/<id>/…`)
 * and a submodule's (`modules/<name>/…`). A submodule's name may hold
 * slashes and may end in any name (`vendor/logs`), so every place where git's
 * layout could begin after `modules/` is a reading, and the path is work
 * only when each reading says so: `modules/vendor/logs/config` is the
 * config of submodule `vendor/logs`, whatever else it could be.
 */
function isWorkWithin(segments: readonly string[]): boolean {
  const [first] = segments;
  if (first === "worktrees") return segments.length > 2 && isWork(segments.slice(2));
  if (first !== "modules") return isWork(segments);
  let readings = 0;
  for (let i = 2; i < segments.length; i++) {
    const name = segments[i]!;
    const begins = LAYOUT_NAMES.has(name) || WORK_DIRS.has(name) || isWork([name]);
    if (!begins) continue;
    readings++;
    if (!isWorkWithin(segments.slice(i))) return false;
  }
  return readings > 0;
}
