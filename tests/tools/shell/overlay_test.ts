/**
 * run_shell's writes go through an overlay and are merged when the command
 * ends, in the launch users run: git's everyday work (add, commit, a new
 * branch, a rebase) goes in; so do new, changed, deleted and replaced files
 * and directories, links, and a directory deleted and made again; a
 * protected name is refused wherever it is made, and a protected entry the
 * command deleted is kept.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { cliRun, tempDir } from "../../_helpers.ts";
import { clientEnv, type LaunchedHost, launchHost } from "../../_mcp.ts";
import { bwrapMissing, exists, shell } from "../../security/_shell.ts";

/** The real git, as the user runs it in the root. */
function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, stdin: "null" }).outputSync();
  return new TextDecoder().decode(out.stdout).trim();
}

/** Run a command and fail with its output when it did not exit 0. */
async function ok(host: LaunchedHost, command: string): Promise<string> {
  const out = await shell(host, command);
  assertStringIncludes(out.text, "EXIT CODE: 0", out.text);
  return out.text;
}

/** What a directory holds, as relative paths (files with their text, links with their target). */
function tree(dir: string, skip: RegExp = /^\.(git|toolhost)(\/|$)/): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const entry of Deno.readDirSync(rel === "" ? dir : `${dir}/${rel}`)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (skip.test(path)) continue;
      if (entry.isSymlink) out[path] = `-> ${Deno.readLinkSync(`${dir}/${path}`)}`;
      else if (entry.isDirectory) visit(path);
      else out[path] = Deno.readTextFileSync(`${dir}/${path}`);
    }
  };
  visit("");
  return out;
}

/** A directory's entry names (none when it is missing). */
function names(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((entry) => entry.name);
  } catch {
    return [];
  }
}

const IDENTITY = "-c user.email=agent@example.com -c user.name=Agent";

Deno.test({
  name: `run_shell merges its writes when it ends${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async (t) => {
  await using dir = await tempDir("toolhost-overlay-");
  const root = dir.path;
  git(root, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${root}/a.txt`, "a\n");
  await Deno.mkdir(`${root}/build/old`, { recursive: true });
  await Deno.writeTextFile(`${root}/build/old/x.o`, "old\n");
  await Deno.writeTextFile(`${root}/gone.txt`, "gone\n");
  await Deno.mkdir(`${root}/sub`);
  await Deno.writeTextFile(`${root}/sub/.envrc`, "export A=1\n");
  await using host = await launchHost({ roots: [root] });

  await t.step("the sandbox says its writes are merged", () => {
    assertMatch(host.session.stderr(), /writes merged into the roots when a command ends/);
  });

  await t.step("git add, commit, checkout -b and rebase work", async () => {
    await ok(host, `git add a.txt && git ${IDENTITY} commit -qm first`);
    await ok(
      host,
      `git checkout -qb feature && echo f > f.txt && git add f.txt && git ${IDENTITY} commit -qm feature`,
    );
    await ok(
      host,
      `git checkout -q main && echo m > m.txt && git add m.txt && git ${IDENTITY} commit -qm main-work`,
    );
    await ok(host, `git checkout -q feature && git ${IDENTITY} rebase -q main`);
    // The user's own git sees all of it.
    assertEquals(git(root, "log", "--format=%s", "feature"), "feature\nmain-work\nfirst");
    assertEquals(git(root, "branch", "--show-current"), "feature");
    assertEquals(git(root, "status", "--porcelain", "--untracked-files=no"), "");
  });

  await t.step("new, changed, deleted and replaced files and directories, and links", async () => {
    await ok(
      host,
      "echo more >> a.txt; rm gone.txt; mkdir -p new/deep && echo n > new/deep/n.txt; " +
        "rm -rf build && mkdir build && echo fresh > build/y.o; ln -s a.txt link.txt; " +
        "mkdir was-file-dir && echo d > was-file-dir/x; echo 1 > f1; rm f1; mkdir f1; " +
        "mkfifo pipe; mkdir -p with && mkfifo with/pipe && echo w > with/w.txt",
    );
    const now = tree(root);
    assertEquals(now["a.txt"], "a\nmore\n");
    assertFalse("gone.txt" in now);
    assertEquals(now["new/deep/n.txt"], "n\n");
    assertEquals(now["build/y.o"], "fresh\n");
    assertFalse("build/old/x.o" in now, "a directory deleted and made again hides what it held");
    assertEquals(now["link.txt"], "-> a.txt");
    assert((await Deno.stat(`${root}/f1`)).isDirectory);
    // A FIFO is not brought in; what else the command wrote is.
    assertFalse("pipe" in now || (await exists(`${root}/pipe`)));
    assertEquals(now["with/w.txt"], "w\n");
    assertFalse(await exists(`${root}/with/pipe`));
  });

  await t.step(
    "the root below the overlay is out of the command's reach, hidden entries too",
    async () => {
      await Deno.mkdir(`${root}/.ssh`);
      await Deno.writeTextFile(`${root}/.ssh/id_rsa`, "PRIVATE KEY\n");
      const out = await shell(
        host,
        "ls /run/toolhost 2>&1; for p in 1 2 3; do cat /proc/$p/root/run/toolhost/lower/0/.ssh/id_rsa 2>&1; done; " +
          "cat .ssh/id_rsa 2>&1; grep -h upperdir /proc/self/mountinfo | head -1",
      );
      assertFalse(out.text.includes("PRIVATE KEY"), out.text);
      await Deno.remove(`${root}/.ssh`, { recursive: true });
    },
  );

  await t.step("a protected name is refused wherever the command makes it", async () => {
    const out = await shell(
      host,
      "echo '{}' > toolhost.json; mkdir -p deep/er && echo x > deep/er/.envrc; " +
        "mkdir -p .vscode && echo '{}' > .vscode/tasks.json; echo fine > deep/er/ok.txt",
    );
    for (const name of ["toolhost.json", "deep/er/.envrc", ".vscode"]) {
      assertStringIncludes(out.text, `SET ASIDE: ${name} (protected`);
      assertFalse(await exists(`${root}/${name}`), name);
    }
    assertEquals(await Deno.readTextFile(`${root}/deep/er/ok.txt`), "fine\n");
    const asideFrom = (out.data.set_aside as string[]).find((line) =>
      line.startsWith("toolhost.json")
    )!;
    const where = asideFrom.slice(asideFrom.lastIndexOf("→ ") + 2);
    assertEquals(await Deno.readTextFile(`${root}/${where}`), "{}\n", "kept where the answer says");
  });

  await t.step(
    "a protected entry the command deleted is kept, and so is what holds one",
    async () => {
      const out = await shell(host, "rm -f sub/.envrc; rm -rf sub");
      assertStringIncludes(out.text, "KEPT: sub");
      assertEquals(await Deno.readTextFile(`${root}/sub/.envrc`), "export A=1\n");
    },
  );

  await t.step(
    "a hard-linked hook keeps its content whatever is written to its other name",
    async () => {
      await Deno.writeTextFile(`${root}/hook.sh`, "#!/bin/sh\nexit 0\n");
      await Deno.link(`${root}/hook.sh`, `${root}/.git/hooks/pre-commit`);
      await ok(host, "echo 'touch /tmp/pwned' >> hook.sh");
      assertEquals(await Deno.readTextFile(`${root}/.git/hooks/pre-commit`), "#!/bin/sh\nexit 0\n");
      assertStringIncludes(await Deno.readTextFile(`${root}/hook.sh`), "touch /tmp/pwned");
    },
  );

  await t.step("nothing of the commands is left in this host's scratch directory", async () => {
    // Where it is: the served process may write it, so its scoped flags name it (`toolhost flags`,
    // run as bin/toolhost runs every command but start: deno run -A mod.ts).
    const flags = await new Deno.Command(Deno.execPath(), {
      args: cliRun(["flags", "--root", root]),
      cwd: "/",
      clearEnv: true,
      env: clientEnv(),
    }).output();
    const line = new TextDecoder().decode(flags.stdout);
    const scratch = /--allow-write=\S*?([^,\s]*\/toolhost\/overlay\/[0-9a-f]+)/.exec(line)?.[1];
    assert(scratch !== undefined, line);
    assert(await exists(scratch), `${scratch} was made at start`);
    assertEquals(names(scratch), [], "every run's overlay was removed");
  });
});
