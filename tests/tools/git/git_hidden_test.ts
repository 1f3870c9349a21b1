/**
 * The git tools in a repository that tracks files the host hides (a
 * history file at its top, a private key deeper down, a secret directory),
 * through the launch `mcp-config` prints, in the real sandbox. There git
 * sees an empty stand-in for each: the tools must neither call them
 * modified nor fail to hash them, and must not show their content; they are
 * left out, with a note. Git itself, run here outside the sandbox, is the
 * oracle for what changed.
 */

import { assert, assertEquals, assertFalse, assertStringIncludes } from "../../_assert.ts";
import { canRun, tempDir, textOf } from "../../_helpers.ts";
import { type LaunchedHost, launchHost } from "../../_mcp.ts";
import { bwrapMissing } from "../../security/_shell.ts";
import { git } from "./_repos.ts";

const missing = [bwrapMissing() ? "bwrap" : "", canRun("git") ? "" : "git"].filter(Boolean);
const skip = missing.length > 0 ? ` (skipped: ${missing.join(" and ")} not installed)` : "";

/** The hidden files, each with content no reply may carry. */
const HIDDEN: Readonly<Record<string, string>> = {
  "history.toml": "HIDDEN-HISTORY = 1\n",
  "keys/id_rsa": "HIDDEN-KEY\n",
  ".aws/config": "HIDDEN-AWS\n",
};

async function text(host: LaunchedHost, name: string, args: Record<string, unknown>) {
  const result = await host.call(name, args);
  const said = textOf(result);
  assertFalse(result.isError === true, `${name}: ${said}`);
  assertFalse(/HIDDEN-/.test(said), `${name} showed a hidden file's content: ${said}`);
  return { said, data: result.structuredContent as Record<string, unknown> };
}

Deno.test({
  name: `git tools skip the files the host hides that a repository tracks, with a note${skip}`,
  ignore: missing.length > 0,
}, async (t) => {
  await using repo = await tempDir();
  await git(repo.path, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${repo.path}/a.txt`, "alpha\n");
  for (const [path, content] of Object.entries(HIDDEN)) {
    await Deno.mkdir(`${repo.path}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${repo.path}/${path}`, content);
  }
  await git(repo.path, "add", "-A");
  await git(repo.path, "commit", "-qm", "first");
  await Deno.writeTextFile(`${repo.path}/history.toml`, "HIDDEN-HISTORY = 2\n");
  await git(repo.path, "commit", "-qam", "only the history");
  await Deno.writeTextFile(`${repo.path}/a.txt`, "alpha\nbeta\n");
  // The oracle: outside the sandbox, git says only a.txt changed.
  assertEquals(await git(repo.path, "status", "--porcelain"), " M a.txt\n");
  await using host = await launchHost({ roots: [repo.path] });
  const hiddenPaths = Object.keys(HIDDEN).sort();

  await t.step(
    "git_status: a.txt modified; the hidden files neither modified nor listed",
    async () => {
      const { said, data } = await text(host, "git_status", {});
      assertEquals(data.unstaged, [{ status: "modified", path: "a.txt" }]);
      assertEquals(data.untracked, []);
      assertEquals((data.hidden as string[]).sort(), hiddenPaths);
      assertStringIncludes(said, "3 paths the host hides left out: ");
    },
  );

  await t.step("get_git_diff of the whole root succeeds, without the hidden files", async () => {
    for (const args of [{ path: "." }, { path: ".", base_rev: "HEAD~1" }]) {
      const { said } = await text(host, "get_git_diff", args);
      assertStringIncludes(said, "a.txt:1-2 @@ -1 +1,2 @@\n alpha\n+beta\n");
      for (const path of hiddenPaths) assertFalse(said.includes(`b/${path}`), said);
      assertStringIncludes(said, "the host hides left out: ");
    }
  });

  await t.step("a diff between commits leaves a hidden file out too", async () => {
    const { said } = await text(host, "get_git_diff", {
      path: ".",
      base_rev: "HEAD~1",
      head_rev: "HEAD",
    });
    assertStringIncludes(said, 'No differences in "." (HEAD~1 vs HEAD)');
    assertStringIncludes(said, "[1 path the host hides left out: history.toml]");
  });

  await t.step("git_show: a commit's hidden files are left out of its stat and diff", async () => {
    const first = await text(host, "git_show", { rev: "HEAD~1" });
    assertStringIncludes(first.said, " a.txt | 1 +\n 1 file changed, 1 insertion(+)\n");
    assertStringIncludes(first.said, "3 paths the host hides left out: ");
    // A commit that changed only a hidden file: its header, and the note.
    const only = await text(host, "git_show", { rev: "HEAD" });
    assertStringIncludes(only.said, "    only the history\n");
    assert(!only.said.includes("diff --git"), only.said);
    assertStringIncludes(only.said, "[1 path the host hides left out: history.toml]");
  });
});
