/**
 * The git tools through the launch `mcp-config` prints, in the real
 * sandbox: hostile repositories whose config runs programs (fsmonitor,
 * filters, textconv, external diff, pager, gpg, hooks, a submodule's own
 * settings, a partial clone's fetch command) — every tool answers and
 * nothing runs — and each tool's output.
 *
 * The sandbox shows none of the host's /tmp, so a program that ran there
 * could leave no file outside the roots, and the roots are read-only for
 * git: the programs live inside a root and print a marker, which is looked
 * for in every reply and in what each git process wrote (the session's
 * process log). A control step runs the same programs, and git without
 * the tools' overrides, through `run_shell`, and finds the marker.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { canRun, tempDir, textOf } from "../../_helpers.ts";
import { type LaunchedHost, launchHost } from "../../_mcp.ts";
import { bwrapMissing } from "../../security/_shell.ts";
import { hostileCalls, type HostileWorld, makeHostileWorld, marks, PWNED } from "./_repos.ts";

/** A record of the session's process log, as `read_interactions` gives it. */
type ProcessRecord = Record<string, unknown>;

const missing = [bwrapMissing() ? "bwrap" : "", canRun("git") ? "" : "git"].filter(Boolean);
const skip = missing.length > 0 ? ` (skipped: ${missing.join(" and ")} not installed)` : "";

const GIT_TOOL_NAMES = ["git_status", "get_git_diff", "git_log", "git_show", "git_blame"];

/**
 * The processes the session ran since the count `since` (newest first, at
 * most 200), and how many it ran in all: the log is written before the
 * reader reads, so the last call's processes are there.
 */
async function processesSince(
  host: LaunchedHost,
  since: number,
): Promise<{ matched: number; records: ProcessRecord[] }> {
  const result = await host.call("read_interactions", { kind: "subprocess", limit: 200 });
  assertFalse(result.isError === true, textOf(result));
  const page = result.structuredContent as { matched: number; subprocesses: ProcessRecord[] };
  return { matched: page.matched, records: page.subprocesses.slice(0, page.matched - since) };
}

/** Assert that no hostile program's marker is in a reply (text and data) or in some processes' output. */
function assertNoMarker(what: string, ...values: unknown[]): void {
  const seen = JSON.stringify(values);
  assertFalse(seen.includes(PWNED), `${what}: ${seen}`);
}

async function text(
  host: LaunchedHost,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await host.call(name, args);
  assertFalse(result.isError === true, `${name}: ${textOf(result)}`);
  return textOf(result);
}

Deno.test({
  name:
    `git tools in hostile repositories run nothing of theirs, in the launch mcp-config prints${skip}`,
  ignore: missing.length > 0,
}, async (t) => {
  await using base = await tempDir();
  await using outside = await tempDir();
  const world = await makeHostileWorld(base.path, outside.path);
  await using host = await launchHost({ roots: world.roots });

  await t.step("the git tools are listed, read-only", () => {
    const listed = host.list().filter((tool) => GIT_TOOL_NAMES.includes(tool.name));
    assertEquals(listed.map((tool) => tool.name).sort(), [...GIT_TOOL_NAMES].sort());
    for (const tool of listed) assertEquals(tool.annotations?.readOnlyHint, true, tool.name);
  });
  let ran = 0;
  for (const [name, args, fails] of hostileCalls(world)) {
    await t.step(`${name} ${JSON.stringify(args)} answers and runs nothing`, async () => {
      const result = await host.call(name, args);
      const said = textOf(result);
      assertEquals(result.isError === true, fails, said);
      assertFalse(said.includes("\x1b["), "no color");
      const { matched, records } = await processesSince(host, ran);
      ran = matched;
      assert(records.some((record) => record.tool === name), `${name} ran git in the sandbox`);
      for (const record of records) assertEquals(record.confinement, "bwrap");
      assertNoMarker(name, result, records);
      assertEquals(await marks(world.dirs), []);
    });
  }
  await t.step("git_status: branch, unstaged and untracked entries", async () => {
    const said = await text(host, "git_status", {});
    assertEquals(
      said,
      "On branch main\nUnstaged (2):\n  modified: a.txt\n  modified: src/b.ts\nUntracked (1):\n  new.txt",
    );
  });
  await t.step("get_git_diff: hunks located, with prefixes git's config turned off", async () => {
    const said = await text(host, "get_git_diff", { path: "a.txt" });
    assertMatch(said, /^diff --git a\/a.txt b\/a.txt\n/);
    assertStringIncludes(
      said,
      "\na.txt:1-4 @@ -1,4 +1,4 @@\n alpha\n BETA\n-gamma\n+GAMMA\n delta\n",
    );
  });
  await t.step("git_log: newest first", async () => {
    const rows = (await text(host, "git_log", {})).split("\n");
    assertEquals(rows.length, 2);
    assertMatch(rows[0]!, /^[0-9a-f]{7,} \d{4}-\d\d-\d\d t \| second: beta and delta$/);
  });
  await t.step("git_show: a commit, and a file at a revision", async () => {
    const commit = await text(host, "git_show", { rev: "HEAD" });
    assertMatch(commit, /^commit [0-9a-f]{40}\n/);
    assertStringIncludes(commit, "a.txt:1-4 @@ -1,3 +1,4 @@");
    const file = await text(host, "git_show", { rev: "HEAD~1", path: "a.txt" });
    assertEquals(file, "a.txt at HEAD~1:\n     1\talpha\n     2\tbeta\n     3\tgamma\n");
  });
  await t.step("git_blame: path:line rows", async () => {
    const rows = (await text(host, "git_blame", { path: "a.txt" })).split("\n");
    assertMatch(rows[0]!, /^a.txt:1 [0-9a-f]{8} t \d{4}-\d\d-\d\d \| alpha$/);
    assertMatch(rows[2]!, /^a.txt:3 uncommitted Not Committed Yet \S+ \| GAMMA$/);
  });
  await t.step("a path outside the roots is refused", async () => {
    const result = await host.call("git_log", { path: outside.path });
    assertMatch(textOf(result), /^path_denied: /);
  });
  await t.step("a file whose directory is gone still has its history", async () => {
    await Deno.remove(`${world.repo}/src`, { recursive: true });
    const rows = (await text(host, "git_log", { path: "src/b.ts" })).split("\n");
    assertEquals(rows.length, 1);
    assertMatch(rows[0]!, /\| first commit$/);
    const diff = await text(host, "get_git_diff", { path: "src/b.ts" });
    assertStringIncludes(diff, "src/b.ts:1 @@ -1 +0,0 @@");
  });
  await t.step("nothing outside the roots is read, through .. or a symbolic link", async () => {
    await Deno.writeTextFile(`${outside.path}/secret.txt`, "OUTSIDE-SECRET\n");
    await Deno.symlink(outside.path, `${world.repo}/out`);
    await Deno.symlink(`${outside.path}/secret.txt`, `${world.repo}/secret-link`);
    const calls: Array<[string, Record<string, unknown>]> = [
      ["git_log", { path: "../" }],
      ["git_blame", { path: "/etc/passwd" }],
      ["get_git_diff", { path: "out" }],
      ["get_git_diff", { path: "out/secret.txt" }],
      ["git_blame", { path: "out/secret.txt" }],
      ["git_blame", { path: "secret-link" }],
      ["git_status", { path: "out" }],
      ["git_show", { rev: "HEAD", path: "out/secret.txt" }],
    ];
    for (const [name, args] of calls) {
      const said = textOf(await host.call(name, args));
      assertFalse(said.includes("OUTSIDE-SECRET"), `${name}: ${said}`);
      assertFalse(said.includes("root:"), `${name}: ${said}`);
    }
    await Deno.remove(`${outside.path}/secret.txt`);
  });
  await t.step(
    "no git process of the steps above printed a marker, nothing was written",
    async () => {
      const { matched, records } = await processesSince(host, ran);
      assertEquals(records.length, matched - ran, "every process since the hostile calls was read");
      assert(records.some((record) => record.tool === "git_blame"), "the steps above ran git");
      assertNoMarker("the session's git processes", records);
      assertEquals(await marks(world.dirs), []);
    },
  );
  await t.step("control: the same programs run in the sandbox and are seen", async (t) => {
    await controlSteps(t, host, world);
  });
});

/**
 * Run the hostile fsmonitor program, and git in the hostile repository
 * without the tools' overrides, through `run_shell`: both print the
 * marker in its reply and in the process log, which the checks above
 * read; its file lands neither in `.git` (read-only there: not what git
 * records work in) nor in the host's /tmp (hidden).
 */
async function controlSteps(t: Deno.TestContext, host: LaunchedHost, world: HostileWorld) {
  await t.step("the fsmonitor program is visible and runs", async () => {
    const result = await host.call("run_shell", { command: `${world.dirs.bin}/fsmonitor` });
    const data = result.structuredContent as { stdout: string; stderr: string };
    assertEquals(data.stdout.trim(), `${PWNED}-fsmonitor`, textOf(result));
    assertEquals(data.stderr.trim(), `${PWNED}-fsmonitor`, textOf(result));
    // It ran (its output says so), but left no mark: the marks' directory lies in .git, where
    // only what git records work in may be written (mounted read-only), and outside is not there.
    assertEquals(await marks(world.dirs), []);
  });
  await t.step("git without the overrides runs it, and the process log shows it", async () => {
    const command = `git -c safe.directory='*' -C ${world.repo} status`;
    const result = await host.call("run_shell", { command });
    assertStringIncludes(textOf(result), `${PWNED}-fsmonitor`);
    const shell = await host.call("read_interactions", {
      kind: "subprocess",
      tool: "run_shell",
      limit: 1,
    });
    const [record] = (shell.structuredContent as { subprocesses: ProcessRecord[] }).subprocesses;
    assertStringIncludes(String(record?.stderr_head), `${PWNED}-fsmonitor`);
  });
}
