/**
 * What an agent plants for the user's own programs to run later, in the
 * launch users run: each way found (git's `commondir`, a `toolhost.json`
 * written while a command sleeps, where symlinked hooks and editor tasks
 * lead, a module a configured server imports, a nested repository's config,
 * a secret in a root that is the home) through `write_file`, `move_file`
 * and `run_shell`, followed by the user's real `git status`, `git commit`
 * and a new toolhost start: nothing planted runs.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../_mcp.ts";
import { bwrapMissing, exists } from "./_shell.ts";

/** The project, and where a marker appears when something planted ran. */
interface Project {
  root: string;
  outside: string;
  marker: (name: string) => string;
}

/** `git` as the user runs it in the project (its hooks and config obeyed). */
function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "user.email=user@example.com", "-c", "user.name=User", ...args],
    cwd,
    stdin: "null",
  }).outputSync();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

/** A repository with a symlinked hook and editor task, and a `.mcp.json` server that imports a helper. */
async function project(base: string): Promise<Project> {
  const root = `${base}/project`;
  const outside = `${base}/outside`;
  const marker = (name: string) => `${outside}/marker-${name}`;
  for (const dir of [root, outside, `${root}/scripts`, `${root}/tools`, `${root}/.vscode`]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  git(root, "init", "-q");
  await Deno.writeTextFile(`${root}/a.txt`, "a\n");
  await Deno.writeTextFile(`${root}/scripts/pre-commit`, "#!/bin/sh\nexit 0\n");
  await Deno.chmod(`${root}/scripts/pre-commit`, 0o755);
  await Deno.symlink("../../scripts/pre-commit", `${root}/.git/hooks/pre-commit`);
  await Deno.writeTextFile(`${root}/tools/tasks.json`, "{}\n");
  await Deno.symlink("../tools/tasks.json", `${root}/.vscode/tasks.json`);
  await Deno.writeTextFile(`${root}/tools/helper.mjs`, "export const x = 1;\n");
  await Deno.writeTextFile(`${root}/tools/obs.mjs`, 'import "./helper.mjs";\n');
  await Deno.writeTextFile(
    `${root}/.mcp.json`,
    JSON.stringify({ mcpServers: { obs: { command: "node", args: ["tools/obs.mjs"] } } }),
  );
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "start");
  return { root, outside, marker };
}

/** The markers that appeared outside: each is something planted that ran. */
function markers(project: Project): string[] {
  return [...Deno.readDirSync(project.outside)].map((entry) => entry.name)
    .filter((name) => name.startsWith("marker-")).sort();
}

/** A `.git/config`-shaped text that runs `touch` on every `git status`. */
function fsmonitor(marker: string): string {
  return `[core]\n\tfsmonitor = touch ${marker}\n`;
}

/** Call run_shell; its text. */
async function shell(session: StdioSession, command: string): Promise<string> {
  return resultText(await session.call("run_shell", { command }));
}

Deno.test({
  name:
    `an agent's plants do not run: git's commondir, a toolhost.json mid-command, linked hooks, a server's module, a nested repository${
      bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
    }`,
  ignore: bwrapMissing(),
}, async (t) => {
  await using base = await tempDir("toolhost-agent-");
  const p = await project(base.path);
  const { root } = p;
  {
    await using agent = await connectStdio([root]);

    await t.step("git's commondir and alternates, by file tool and by command", async () => {
      for (
        const path of [".git/commondir", ".git/objects/info/alternates", "a/../.git/commondir"]
      ) {
        const wrote = await agent.call("write_file", { path, content: "../evil\n" });
        assertMatch(resultText(wrote), /^protected_path: /, path);
      }
      await agent.call("write_file", {
        path: "evil/config",
        content: fsmonitor(p.marker("commondir")),
        create_parents: true,
      });
      const moved = await agent.call("move_file", {
        source: "evil/config",
        destination: ".git/commondir",
      });
      assertMatch(resultText(moved), /^protected_path: /);
      const out = await shell(
        agent,
        "mkdir -p evil2 && cp evil/config evil2/config && echo ../evil2 > .git/commondir",
      );
      assertStringIncludes(out, "SET ASIDE: .git/commondir");
      assertFalse(await exists(`${root}/.git/commondir`));
    });

    await t.step(
      "a toolhost.json a command writes is not in the root while it runs, nor after",
      async () => {
        const planted = {
          upstream: { mcpServers: { x: { command: "touch", args: [p.marker("toolhost-json")] } } },
        };
        const controller = new AbortController();
        let written: () => void = () => {};
        const seen = new Promise<void>((resolve) => (written = resolve));
        const call = agent.client.callTool(
          {
            name: "run_shell",
            arguments: {
              command: `echo '${JSON.stringify(planted)}' > toolhost.json; echo written; sleep 120`,
              timeout_s: 300,
            },
          },
          {
            signal: controller.signal,
            timeout: 300_000,
            onprogress: (progress: { message?: string | undefined }) => {
              if (progress.message?.includes("written")) written();
            },
          },
        ).catch(() => "cancelled");
        await seen;
        assertFalse(
          await exists(`${root}/toolhost.json`),
          "not in the root while the command runs",
        );
        {
          // A toolhost started on the root meanwhile finds nothing to obey.
          await using other = await connectStdio([root]);
          await other.client.listTools();
        }
        controller.abort();
        await call;
        // Merges happen one at a time: once this command's is done, the cancelled one's is too.
        await shell(agent, "true");
        assertFalse(await exists(`${root}/toolhost.json`), "set aside after the command");
      },
    );

    await t.step("where the linked hook and editor task lead stays as it was", async () => {
      for (const path of ["scripts/pre-commit", "tools/tasks.json"]) {
        const wrote = await agent.call("write_file", { path, content: "touch pwned\n" });
        assertMatch(resultText(wrote), /^protected_path: .* links to it/);
      }
      await agent.call("write_file", {
        path: "payload.sh",
        content: `touch ${p.marker("hook")}\n`,
      });
      const moved = await agent.call("move_file", {
        source: "payload.sh",
        destination: "scripts/pre-commit",
        overwrite: true,
      });
      assertMatch(resultText(moved), /^protected_path: /);
      const out = await shell(
        agent,
        `echo 'touch ${
          p.marker("hook")
        }' >> scripts/pre-commit; echo '{"tasks": []}' > tools/tasks.json`,
      );
      // Mounted read-only in the sandbox, as the protected names themselves are.
      assertMatch(out, /scripts\/pre-commit: Read-only file system/);
      assertMatch(out, /tools\/tasks\.json: Read-only file system/);
      const replaced = await shell(
        agent,
        "rm -f scripts/pre-commit; mv payload.sh scripts/pre-commit",
      );
      assertMatch(replaced, /busy|Read-only/);
      assertEquals(await Deno.readTextFile(`${root}/scripts/pre-commit`), "#!/bin/sh\nexit 0\n");
      assertEquals(await Deno.readTextFile(`${root}/tools/tasks.json`), "{}\n");
    });

    await t.step(
      "a module a configured server imports may change, but no server starts it outside the sandbox",
      async () => {
        const wrote = await agent.call("write_file", {
          path: "tools/helper.mjs",
          content: `import { writeFileSync } from "node:fs";\nwriteFileSync(${
            JSON.stringify(p.marker("helper"))
          }, "ran");\n`,
        });
        assertFalse(wrote.isError === true, resultText(wrote));
        const script = await agent.call("write_file", { path: "tools/obs.mjs", content: "x" });
        assertMatch(resultText(script), /^protected_path: .*"obs" \(\.mcp\.json\)/);
      },
    );

    await t.step("a nested repository's config and hooks never reach the root", async () => {
      const wrote = await agent.call("write_file", {
        path: "sub/.git/config",
        content: fsmonitor(p.marker("nested")),
        create_parents: true,
      });
      assertMatch(resultText(wrote), /^protected_path: /);
      const out = await shell(
        agent,
        `git init -q sub && git -C sub config core.fsmonitor 'touch ${p.marker("nested")}' && ` +
          `printf '#!/bin/sh\\ntouch ${p.marker("nested-hook")}\\n' > sub/.git/hooks/post-checkout`,
      );
      assertStringIncludes(out, "SET ASIDE: sub/.git/config");
      assertFalse(await exists(`${root}/sub/.git/config`));
      assertFalse(await exists(`${root}/sub/.git/hooks/post-checkout`));
      // What git records its work in did go in: a repository without a config still works.
      assert(await exists(`${root}/sub/.git/HEAD`));
    });
  }

  await t.step(
    "the user's own git status, git commit and a new toolhost start run nothing planted",
    async () => {
      git(root, "status");
      git(`${root}/sub`, "status");
      await Deno.writeTextFile(`${root}/a.txt`, "a\nb\n");
      const committed = git(root, "commit", "-q", "-am", "user's commit");
      assertFalse(/error|fatal/i.test(committed), committed);
      await using again = await connectStdio([root], { env: { EFFERENT_COPY_ENABLE: "1" } });
      await again.client.listTools();
    },
  );
  assertEquals(markers(p), [], "nothing planted ran");
});

Deno.test({
  name: `a root that is the home: its secrets are hidden from the file tools and the shell alike${
    bwrapMissing() ? " (skipped: bwrap is not installed)" : ""
  }`,
  ignore: bwrapMissing(),
}, async () => {
  await using home = await tempDir("toolhost-home-");
  await Deno.mkdir(`${home.path}/.ssh`);
  await Deno.writeTextFile(`${home.path}/.ssh/id_rsa`, "PRIVATE KEY\n");
  await Deno.writeTextFile(`${home.path}/.env`, "TOKEN=home-token\n");
  await Deno.mkdir(`${home.path}/work/deploy`, { recursive: true });
  await Deno.writeTextFile(`${home.path}/work/deploy/id_ed25519`, "DEPLOY KEY\n");
  await Deno.writeTextFile(`${home.path}/work/notes.txt`, "notes\n");
  // Deno's caches stay where they are (else the launch would fill the root with them).
  const realHome = Deno.env.get("HOME") ?? "/root";
  await using session = await connectStdio([home.path], {
    env: {
      HOME: home.path,
      XDG_CACHE_HOME: Deno.env.get("XDG_CACHE_HOME") ?? `${realHome}/.cache`,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${realHome}/.cache/deno`,
    },
  });
  for (const path of [".ssh/id_rsa", ".env", "work/deploy/id_ed25519"]) {
    const read = await session.call("read_file", { path });
    assertMatch(resultText(read), /^path_denied: /, path);
  }
  const listed = resultText(await session.call("list_directory", { path: "." }));
  assertFalse(listed.includes(".ssh"), listed);
  const found = resultText(await session.call("grep", { pattern: "E KEY|TOKEN=", path: "." }));
  assertMatch(found, /^No matches/, found);
  const out = resultText(
    await session.call("run_shell", {
      command: "cat .ssh/id_rsa .env work/deploy/id_ed25519 2>&1; cat work/notes.txt",
    }),
  );
  assertFalse(/PRIVATE|DEPLOY|home-token/.test(out), out);
  assertStringIncludes(out, "notes");
});
