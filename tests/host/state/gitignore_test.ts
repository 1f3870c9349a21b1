/**
 * The state directory stays out of the user's version control: through the
 * launch users run (`mcp-config`'s command, a real MCP client over stdio),
 * in a git repository, a host that wrote state (a todo list, the
 * interaction log) leaves `git status` as clean as it found it, and writes
 * its `.gitignore` again when it finds the directory without one.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { connectStdio, resultText } from "../../_mcp.ts";

/** Run git in a directory, failing loudly. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return text;
}

/** Start the served host, write a todo list (state and a log line), and stop it. */
async function writeState(root: string, content: string): Promise<void> {
  await using session = await connectStdio([root]);
  const written = await session.call("todo_write", { todos: [{ content, status: "pending" }] });
  assertFalse(written.isError, resultText(written));
}

Deno.test({
  name: "state dir: a served host's state never shows in the project's git status",
  ignore: !canRun("git"),
  async fn() {
    await using root = await tempDir();
    await git(root.path, "init", "--quiet");
    await Deno.writeTextFile(`${root.path}/main.py`, "print('hi')\n");
    await git(root.path, "add", "main.py");
    await git(root.path, "commit", "--quiet", "-m", "start");
    assertEquals(await git(root.path, "status", "--porcelain", "--untracked-files=all"), "");

    await writeState(root.path, "first");
    const state = `${root.path}/.toolhost`;
    // The host did write state there: the test would see it, were it not ignored.
    assertMatch(await Deno.readTextFile(`${state}/todos.json`), /first/);
    assert((await Array.fromAsync(Deno.readDir(`${state}/interactions`))).length > 0);
    assertEquals(await git(root.path, "status", "--porcelain", "--untracked-files=all"), "");
    assertEquals(
      await git(root.path, "check-ignore", ".toolhost/todos.json"),
      ".toolhost/todos.json\n",
    );

    // A directory the host made that lost its .gitignore shows, until the host starts again.
    await Deno.remove(`${state}/.gitignore`);
    assertMatch(await git(root.path, "status", "--porcelain"), /^\?\? \.toolhost\/$/m);
    await writeState(root.path, "second");
    assertMatch(await Deno.readTextFile(`${state}/todos.json`), /second/);
    assertEquals(await git(root.path, "status", "--porcelain", "--untracked-files=all"), "");
  },
});
