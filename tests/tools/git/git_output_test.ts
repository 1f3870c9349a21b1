/**
 * The git tools' replies over real repositories made with real git, run by
 * a sandbox that starts git directly (the confinement is the black-box
 * tests'): status sections, located hunks, paging notes, log rows,
 * commits and files at a revision, blame rows.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { canRun, tempDir, textOf, toolContext } from "../../_helpers.ts";
import { GIT_TOOLS } from "../../../tools/git/mod.ts";
import type { Tool, ToolContext } from "../../../tools/tool.ts";
import { callTool, DirectSandbox, git, makeRepo, withSandbox } from "./_repos.ts";

const noGit = !canRun("git");
const skip = noGit ? " (skipped: git is not installed)" : "";

function tool(name: string): Tool {
  return GIT_TOOLS.find((t) => t.name === name)!;
}

async function context(root: string): Promise<ToolContext> {
  return withSandbox(await toolContext(root), new DirectSandbox());
}

async function call(ctx: ToolContext, name: string, args: Record<string, unknown> = {}) {
  const result = await callTool(tool(name), args, ctx);
  return { result, text: textOf(result), data: result.structuredContent ?? {} };
}

Deno.test(
  { name: `git_status lists the branch and each kind of entry${skip}`, ignore: noGit },
  async (t) => {
    await using root = await tempDir();
    await makeRepo(root.path);
    const ctx = await context(root.path);
    await t.step("the whole repository", async () => {
      const { text, data } = await call(ctx, "git_status");
      assertEquals(
        text,
        "On branch main\nUnstaged (2):\n  modified: a.txt\n  modified: src/b.ts\nUntracked (1):\n  new.txt",
      );
      assertEquals(data.branch, "main");
    });
    await t.step("staged changes, a rename, and one path", async () => {
      await git(root.path, "mv", "--", "-n", "renamed-n");
      await git(root.path, "add", "src/b.ts");
      const { text } = await call(ctx, "git_status", { path: "src" });
      assertEquals(text, "On branch main\nStaged (1):\n  modified: src/b.ts");
      const all = await call(ctx, "git_status");
      assertStringIncludes(all.text, "renamed: -n -> renamed-n");
      assertEquals((all.data.staged as Array<{ from?: string }>)[0]?.from, "-n");
    });
    await t.step("a clean tree says so", async () => {
      await git(root.path, "add", "-A");
      await git(root.path, "commit", "-qm", "third");
      const { text } = await call(ctx, "git_status");
      assertEquals(text, "On branch main\nNothing to commit, working tree clean");
    });
  },
);

Deno.test({
  name: `git_status says how far the branch is from its upstream, and bounds long lists${skip}`,
  ignore: noGit,
}, async (t) => {
  await using root = await tempDir();
  await makeRepo(`${root.path}/origin`);
  await git(root.path, "clone", "-q", `${root.path}/origin`, "clone");
  const clone = `${root.path}/clone`;
  const ctx = await context(clone);
  await t.step("ahead of the upstream", async () => {
    await Deno.writeTextFile(`${clone}/c.txt`, "c\n");
    await git(clone, "add", "c.txt");
    await git(clone, "commit", "-qm", "third");
    const { text, data } = await call(ctx, "git_status");
    assertEquals(
      text,
      "On branch main (origin/main: ahead 1, behind 0)\nNothing to commit, working tree clean",
    );
    assertEquals([data.upstream, data.ahead, data.behind], ["origin/main", 1, 0]);
  });
  await t.step("a detached HEAD", async () => {
    await git(clone, "checkout", "-q", "--detach", "HEAD~1");
    assertMatch((await call(ctx, "git_status")).text, /^HEAD detached at [0-9a-f]{12}\n/);
  });
  await t.step("at most 400 entries", async () => {
    await Promise.all(
      Array.from({ length: 450 }, (_, i) => Deno.writeTextFile(`${clone}/u${i}.txt`, "")),
    );
    const { text, data } = await call(ctx, "git_status");
    assertStringIncludes(text, "Untracked (450):\n");
    assertStringIncludes(text, "\n  … 50 more\n");
    assertMatch(
      text,
      /\[400 of 450 entries listed; git_status\(path=…\) lists those under one path\]$/,
    );
    assertEquals((data.untracked as unknown[]).length, 400);
    assertEquals(data.truncated, true);
  });
});

Deno.test(
  { name: `get_git_diff locates each hunk and pages long diffs${skip}`, ignore: noGit },
  async (t) => {
    await using root = await tempDir();
    await makeRepo(root.path);
    const ctx = await context(root.path);
    await t.step("working tree against HEAD", async () => {
      const { text, data } = await call(ctx, "get_git_diff", { path: "a.txt" });
      assertMatch(text, /^diff --git a\/a.txt b\/a.txt\n/);
      assertStringIncludes(
        text,
        "\na.txt:1-4 @@ -1,4 +1,4 @@\n alpha\n BETA\n-gamma\n+GAMMA\n delta\n",
      );
      assertEquals(data.hunks, [{ path: "a.txt", start: 1, end: 4 }]);
      assertEquals(data.compared, "HEAD vs working tree");
    });
    await t.step("a revision against the working tree, and two revisions", async () => {
      const base = await call(ctx, "get_git_diff", { path: ".", base_rev: "HEAD~1" });
      assertStringIncludes(base.text, "a.txt:1-4 @@ -1,3 +1,4 @@");
      assertStringIncludes(base.text, "src/b.ts:1 @@ -1 +1 @@");
      const both = await call(ctx, "get_git_diff", {
        path: "src",
        base_rev: "HEAD~1",
        head_rev: "HEAD",
      });
      assertEquals(both.text, 'No differences in "src" (HEAD~1 vs HEAD)');
    });
    await t.step("a page, and the call for the next", async () => {
      const first = await call(ctx, "get_git_diff", { path: "a.txt", limit: 3 });
      assertEquals(first.result.content.length, 2);
      assertEquals(
        textOf({ content: [first.result.content[1]!] }),
        '[lines 1-3 of 10; get_git_diff(path="a.txt", limit=3, offset=4) for more]',
      );
      const next = await call(ctx, "get_git_diff", { path: "a.txt", limit: 3, offset: 4 });
      assert(next.text.startsWith("+++ b/a.txt\na.txt:1-4 @@"), next.text);
      const past = await call(ctx, "get_git_diff", { path: "a.txt", offset: 99 });
      assertMatch(past.text, /^invalid_argument: Cannot read from line 99/);
    });
    await t.step("a deleted file is located on its old lines", async () => {
      await Deno.remove(`${root.path}/src/b.ts`);
      const { data } = await call(ctx, "get_git_diff", { path: "src" });
      assertEquals(data.hunks, [{ path: "src/b.ts", start: 1, end: 1 }]);
    });
    await t.step("a repository with no commit yet compares the index", async () => {
      await using fresh = await tempDir();
      await git(fresh.path, "init", "-q");
      await Deno.writeTextFile(`${fresh.path}/x.txt`, "one\n");
      await git(fresh.path, "add", "x.txt");
      await Deno.writeTextFile(`${fresh.path}/x.txt`, "one\ntwo\n");
      const fctx = await context(fresh.path);
      const { text, data } = await call(fctx, "get_git_diff", { path: "x.txt" });
      assertStringIncludes(text, "x.txt:1-2 @@ -1 +1,2 @@");
      assertEquals(data.compared, "no commit yet: index vs working tree");
      assertEquals((await call(fctx, "git_log")).text, "No commits yet");
    });
  },
);

Deno.test(
  { name: `git_log lists commits newest first and pages with offset${skip}`, ignore: noGit },
  async () => {
    await using root = await tempDir();
    await makeRepo(root.path);
    const ctx = await context(root.path);
    const { text, data } = await call(ctx, "git_log");
    const rows = text.split("\n");
    assertEquals(rows.length, 2);
    assertMatch(rows[0]!, /^[0-9a-f]{7,} \d{4}-\d\d-\d\d t \| second: beta and delta$/);
    assertMatch(rows[1]!, /\| first commit$/);
    assertEquals((data.commits as unknown[]).length, 2);
    const page = await call(ctx, "git_log", { limit: 1 });
    assertMatch(
      page.text,
      /\| second: beta and delta\n\[commits 1-1; git_log\(limit=1, offset=1\) for more\]$/,
    );
    const second = await call(ctx, "git_log", { limit: 1, offset: 1 });
    assertMatch(second.text, /\| first commit\n\[commits 2-2; no more\]$/);
    const dash = await call(ctx, "git_log", { path: "-n" });
    assertMatch(dash.text, /^[0-9a-f]+ \S+ t \| first commit$/);
    const range = await call(ctx, "git_log", { rev: "HEAD~1..HEAD" });
    assertEquals(range.text.split("\n").length, 1);
    assertMatch(
      (await call(ctx, "git_log", { rev: "nope" })).text,
      /^invalid_argument: git log failed: fatal: /,
    );
  },
);

Deno.test({
  name: `git_show shows a commit with located hunks, or a file at a revision${skip}`,
  ignore: noGit,
}, async (t) => {
  await using root = await tempDir();
  await makeRepo(root.path);
  const ctx = await context(root.path);
  await t.step("a commit", async () => {
    const { text, data } = await call(ctx, "git_show", { rev: "HEAD" });
    assertMatch(text, /^commit [0-9a-f]{40}\nParents: [0-9a-f]+\nAuthor: t <t@t>\nDate: {3}\d{4}-/);
    assertStringIncludes(text, "\n    second: beta and delta\n");
    assertStringIncludes(text, " a.txt | 3 ++-\n");
    assertStringIncludes(text, "a.txt:1-4 @@ -1,3 +1,4 @@\n alpha\n-beta\n+BETA\n gamma\n+delta\n");
    assertEquals(data.hunks, [{ path: "a.txt", start: 1, end: 4 }]);
  });
  await t.step("a file at a revision, numbered", async () => {
    const { text } = await call(ctx, "git_show", { rev: "HEAD~1", path: "a.txt" });
    assertEquals(text, "a.txt at HEAD~1:\n     1\talpha\n     2\tbeta\n     3\tgamma\n");
    const paged = await call(ctx, "git_show", { rev: "HEAD", path: "a.txt", offset: 2, limit: 1 });
    assertStringIncludes(paged.text, "     2\tBETA\n");
    assertStringIncludes(
      paged.text,
      '[lines 2-2 of 4; git_show(rev="HEAD", path="a.txt", limit=1, offset=3) for more]',
    );
  });
  await t.step("a directory at a revision", async () => {
    const { text } = await call(ctx, "git_show", { rev: "HEAD", path: "src" });
    assertStringIncludes(text, "src at HEAD (directory):\n");
    assertStringIncludes(text, "b.ts");
  });
  await t.step("a file missing at the revision", async () => {
    const { text } = await call(ctx, "git_show", { rev: "HEAD", path: "new.txt" });
    assertMatch(text, /^not_found: git show failed: fatal: path 'new.txt'/);
  });
  await t.step("a binary file", async () => {
    await Deno.writeFile(`${root.path}/bin.dat`, new Uint8Array([0, 1, 2, 0, 255]));
    await git(root.path, "add", "bin.dat");
    await git(root.path, "commit", "-qm", "binary");
    const { text } = await call(ctx, "git_show", { rev: "HEAD", path: "bin.dat" });
    assertMatch(
      text,
      /^binary_file: Cannot show "bin.dat" at HEAD: it is a binary file of 5 bytes/,
    );
  });
});

Deno.test(
  { name: `git_blame gives path:line rows, a range at a time${skip}`, ignore: noGit },
  async () => {
    await using root = await tempDir();
    await makeRepo(root.path);
    const ctx = await context(root.path);
    const { text, data } = await call(ctx, "git_blame", { path: "a.txt" });
    const rows = text.split("\n");
    assertEquals(rows.length, 4);
    assertMatch(rows[0]!, /^a.txt:1 [0-9a-f]{8} t \d{4}-\d\d-\d\d \| alpha$/);
    assertMatch(rows[1]!, /^a.txt:2 [0-9a-f]{8} t \S+ \| BETA$/);
    assertMatch(rows[2]!, /^a.txt:3 uncommitted Not Committed Yet \S+ \| GAMMA$/);
    assertFalse(rows[0]!.slice(8, 16) === rows[1]!.slice(8, 16), "two commits");
    assertEquals(data.more, false);
    const one = await call(ctx, "git_blame", { path: "a.txt", start_line: 2, end_line: 2 });
    assertMatch(
      one.text,
      /^a.txt:2 [0-9a-f]{8} t \S+ \| BETA\n\[lines 2-2; git_blame\(path="a.txt", start_line=3\) for more\]$/,
    );
    const old = await call(ctx, "git_blame", { path: "a.txt", rev: "HEAD~1" });
    assertEquals(old.text.split("\n").map((row) => row.split(" | ")[1]), [
      "alpha",
      "beta",
      "gamma",
    ]);
    const dash = await call(ctx, "git_blame", { path: "-n" });
    assertMatch(dash.text, /^-n:1 [0-9a-f]{8} t \S+ \| dash$/);
    const past = await call(ctx, "git_blame", { path: "a.txt", start_line: 9 });
    assertMatch(past.text, /^invalid_argument: .*has only 4 lines/);
  },
);

Deno.test({
  name:
    `git tools find a repository inside a root that is not one, and name paths from the primary root${skip}`,
  ignore: noGit,
}, async () => {
  await using root = await tempDir();
  await makeRepo(`${root.path}/proj`);
  const ctx = await context(root.path);
  const status = await call(ctx, "git_status", { path: "proj" });
  assertStringIncludes(status.text, "  modified: proj/a.txt\n  modified: proj/src/b.ts");
  const diff = await call(ctx, "get_git_diff", { path: "proj/a.txt" });
  assertStringIncludes(diff.text, "proj/a.txt:1-4 @@");
  const blame = await call(ctx, "git_blame", { path: "proj/src/b.ts" });
  assertMatch(blame.text, /^proj\/src\/b.ts:1 uncommitted /);
  const none = await call(ctx, "git_status");
  assertMatch(none.text, /^not_found: "\." is not inside a git repository/);
  await Deno.symlink(`${root.path}/proj/src`, `${root.path}/link`);
  const linked = await call(ctx, "git_log", { path: "link/b.ts" });
  assertMatch(
    linked.text,
    /^invalid_path: "link\/b.ts" leads into the repository at ".*\/proj" through a symbolic link/,
  );
});

Deno.test({
  name: `git tools name files with spaces, non-ASCII letters and quotes as they are${skip}`,
  ignore: noGit,
}, async () => {
  await using root = await tempDir();
  await git(root.path, "init", "-q", "-b", "main");
  const names = ["with space.txt", "tést ü.txt", 'quo"te\tand tab.txt'];
  for (const name of names) await Deno.writeTextFile(`${root.path}/${name}`, "one\n");
  await git(root.path, "add", "-A");
  await git(root.path, "-c", "user.name=Zoë Ünïcode", "commit", "-qm", "naïve: añadir");
  for (const name of names) await Deno.writeTextFile(`${root.path}/${name}`, "one\ntwo\n");
  const ctx = await context(root.path);
  const status = await call(ctx, "git_status");
  assertStringIncludes(
    status.text,
    'Unstaged (3):\n  modified: quo"te\tand tab.txt\n  modified: tést ü.txt\n  modified: with space.txt',
  );
  const diff = await call(ctx, "get_git_diff", { path: "." });
  assertEquals(
    (diff.data.hunks as Array<{ path: string }>).map((hunk) => hunk.path).sort(),
    [...names].sort(),
  );
  assertStringIncludes(diff.text, "tést ü.txt:1-2 @@ -1 +1,2 @@");
  const log = await call(ctx, "git_log");
  assertMatch(log.text, /^[0-9a-f]+ \S+ Zoë Ünïcode \| naïve: añadir$/);
  const blame = await call(ctx, "git_blame", { path: "tést ü.txt" });
  assertMatch(blame.text, /^tést ü.txt:1 [0-9a-f]{8} Zoë Ünïcode \S+ \| one\n/);
});
