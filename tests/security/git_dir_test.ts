/**
 * The git directory's allowlist (`security/git_dir.ts`): what git writes to
 * record work may be written; what configures git or makes it run commands
 * stays protected, in the top git directory, a nested repository's, a
 * submodule's and a linked worktree's; and the same through the compiled
 * protection the resolver uses.
 */

import { assertEquals } from "../_assert.ts";
import { GIT_DIRECTORY_WHY, GIT_ENTRY_WHY, gitDirectoryWhy } from "../../security/git_dir.ts";
import {
  compileProtection,
  GIT_DIRECTORY_RULE,
  PROTECTED_PATHS,
} from "../../security/protected.ts";

const SHA1 = "0123456789abcdef0123456789abcdef01234567";

/** Paths git writes to record work: none is protected. */
const WORK = [
  ".git/objects/ab/cdef",
  ".git/objects/pack/pack-1.pack",
  ".git/objects/pack/pack-1.idx",
  ".git/objects/info/packs",
  ".git/refs/heads/main",
  ".git/refs/tags/v1.lock",
  ".git/logs/HEAD",
  ".git/logs/refs/heads/main",
  ".git/index",
  ".git/index.lock",
  ".git/HEAD",
  ".git/HEAD.lock",
  ".git/ORIG_HEAD",
  ".git/FETCH_HEAD",
  ".git/MERGE_HEAD",
  ".git/CHERRY_PICK_HEAD",
  ".git/COMMIT_EDITMSG",
  ".git/MERGE_MSG",
  ".git/packed-refs",
  ".git/packed-refs.lock",
  ".git/shallow",
  ".git/rebase-merge/done",
  ".git/rebase-apply/patch",
  ".git/sequencer/todo",
  ".git/rr-cache/ab/preimage",
  ".git/BISECT_LOG",
  ".git/gc.pid",
  `.git/sharedindex.${SHA1}`,
  "sub/.git/objects/x",
  "sub/.git/refs/heads/main",
  ".git/modules/lib/objects/ab/cd",
  ".git/modules/lib/HEAD",
  ".git/modules/lib/index",
  ".git/modules/a/b/refs/heads/x",
  ".git/worktrees/w/HEAD",
  ".git/worktrees/w/index",
  ".git/worktrees/w/logs/HEAD",
];

/** Paths outside every git directory: not the git rule's business. */
const OUTSIDE = [
  "src/a.py",
  ".gitignore",
  ".github/x",
  ".gitmodules",
  "a.git/config",
  "git/config",
];

/** Paths inside a git directory that configure git or make it run commands. */
const PROTECTED = [
  ".git/config",
  ".git/config.lock",
  ".git/config.worktree",
  ".git/hooks",
  ".git/hooks/pre-commit",
  ".git/commondir",
  ".git/info",
  ".git/info/exclude",
  ".git/info/attributes",
  ".git/description",
  ".git/branches/x",
  ".git/remotes/origin",
  ".git/objects/info/alternates",
  ".git/objects/info/http-alternates",
  ".git/modules",
  ".git/modules/lib",
  ".git/modules/lib/config",
  ".git/modules/lib/hooks/post-checkout",
  ".git/modules/a/b/config",
  ".git/worktrees",
  ".git/worktrees/w",
  ".git/worktrees/w/gitdir",
  ".git/worktrees/w/commondir",
  ".git/worktrees/w/config.worktree",
  "sub/.git/config",
  "deep/er/.git/hooks/x",
  // Case variants: a case-insensitive file system opens these for the lower-case names.
  ".GIT/CONFIG",
  ".Git/Hooks/x",
  ".git/OBJECTS/INFO/ALTERNATES",
  // `refs` is a directory: git never writes `refs.lock`, so the lock of a
  // work *file* name is allowed (`index.lock`), this one is not.
  ".git/refs.lock",
  ".git/hooks.lock",
  // Not git's layout at all: unknown names are protected by the allowlist.
  ".git/lfs/objects/x",
  ".git/anything",
];

Deno.test("gitDirectoryWhy allows what git writes to record work, and protects the rest of a git directory", async (t) => {
  await t.step("paths outside a git directory are not its concern", () => {
    for (const path of OUTSIDE) assertEquals(gitDirectoryWhy(path), undefined, path);
  });
  await t.step("work git records may be written, in every kind of git directory", () => {
    for (const path of WORK) assertEquals(gitDirectoryWhy(path), undefined, path);
  });
  await t.step("the .git entry itself is protected, with its own reason", () => {
    for (const path of [".git", "sub/.git", ".GIT"]) {
      assertEquals(gitDirectoryWhy(path), GIT_ENTRY_WHY, path);
    }
  });
  await t.step("everything else inside a git directory is protected", () => {
    for (const path of PROTECTED) assertEquals(gitDirectoryWhy(path), GIT_DIRECTORY_WHY, path);
  });
});

Deno.test("gitDirectoryWhy protects the config and hooks of a submodule whose name ends in a layout name", () => {
  // A submodule at `vendor/logs` (its name defaults to its path) has its git
  // directory at `.git/modules/vendor/logs/`: its `config` and `hooks/` make
  // git run commands exactly like the top repository's.
  for (
    const path of [
      ".git/modules/vendor/logs/config",
      ".git/modules/vendor/logs/hooks/post-checkout",
      ".git/modules/deps/objects/config",
    ]
  ) {
    assertEquals(gitDirectoryWhy(path), GIT_DIRECTORY_WHY, path);
  }
});

Deno.test("compileProtection applies the git allowlist for GIT_DIRECTORY_RULE", async (t) => {
  const root = "/r";
  const protection = compileProtection([GIT_DIRECTORY_RULE]);
  await t.step("the same table holds through why(path, relative)", () => {
    for (const path of [...OUTSIDE, ...WORK]) {
      assertEquals(protection.why(`${root}/${path}`, path), undefined, path);
    }
    assertEquals(protection.why(`${root}/.git`, ".git"), GIT_ENTRY_WHY);
    for (const path of PROTECTED) {
      assertEquals(protection.why(`${root}/${path}`, path), GIT_DIRECTORY_WHY, path);
    }
  });
  await t.step("the root itself and a path in no root are not judged by name", () => {
    assertEquals(protection.why(root, ""), undefined);
    assertEquals(protection.why("/elsewhere/.git/config", undefined), undefined);
  });
  await t.step("without the rule, a git directory is not protected", () => {
    assertEquals(compileProtection([]).why(`${root}/.git/config`, ".git/config"), undefined);
  });
});

Deno.test("compileProtection of the fixed list keeps the other rules besides the git allowlist", () => {
  const protection = compileProtection(PROTECTED_PATHS);
  const why = (path: string) => protection.why(`/r/${path}`, path);
  for (
    const path of [".envrc", ".vscode/tasks.json", "sub/.VSCode/settings.json", ".husky/pre-push"]
  ) {
    assertEquals(typeof why(path), "string", path);
  }
  assertEquals(why(".envrc"), "direnv runs it on entering the directory");
  assertEquals(why(".vscode/tasks.json"), "VS Code runs its tasks and applies its settings");
  assertEquals(why("src/x"), undefined);
  assertEquals(why(".git/refs/heads/main"), undefined);
  assertEquals(why(".git/config"), GIT_DIRECTORY_WHY);
});
