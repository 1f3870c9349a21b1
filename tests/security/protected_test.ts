/**
 * Protected paths, in the launch users run: every protected path, with every
 * tool that writes, spelled directly, through a symlinked alias and through
 * `sub/../`, is refused with `protected_path` and nothing changes on disk;
 * reading them still works; and what an agent tries to plant (`toolhost.json`,
 * `.mcp.json`) never runs when the host starts again with `task start`.
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { clientEnv, connectStdio, resultText } from "../_mcp.ts";
import { PROTECTED_PATHS } from "../../security/protected.ts";
import { Resolver } from "../../security/resolver.ts";
import { loadConfig } from "../../host/config/config.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const CONTENT = "def f():\n    return 1\n\nx = 1\n";

/**
 * What a git directory holds that is protected by its allowlist (everything
 * but the work git records), in a repository, a submodule's and a worktree's
 * git directory.
 */
const GIT_TARGETS = [
  ".git",
  ".git/config",
  ".git/config.worktree",
  ".git/hooks/item",
  ".git/commondir",
  ".git/info/exclude",
  ".git/description",
  ".git/objects/info/alternates",
  ".git/modules/sub/config",
  ".git/modules/sub/hooks/item",
  ".git/worktrees/w/gitdir",
  ".git/worktrees/w/commondir",
];

/** A concrete path for each protected glob: `X/**` becomes `X/item`; git's directory, by its allowlist. */
function targets(): string[] {
  return PROTECTED_PATHS.flatMap((rule) =>
    rule.allow === "git"
      ? GIT_TARGETS
      : [rule.glob.endsWith("/**") ? `${rule.glob.slice(0, -3)}/item` : rule.glob]
  );
}

/** Every file, directory and link under a directory, with file contents; the host's log aside. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (dir: string, relative: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (/^\.toolhost\/(interactions|sessions|anchors\.json|todos\.json)/.test(rel)) continue;
      if (entry.isSymlink) out.set(rel, `link -> ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        out.set(rel, "dir");
        await visit(path, rel);
      } else out.set(rel, await Deno.readTextFile(path));
    }
  };
  await visit(root, "");
  return out;
}

/** Each writing tool's calls that would change `path`. */
function writes(path: string): Array<[string, Record<string, unknown>]> {
  const code = { name: "f", content: "def f():\n    return 2\n" };
  return [
    ["write_file", { path, content: "pwned\n", create_parents: true }],
    ["edit_file", { path, old_string: "x = 1", new_string: "x = 2" }],
    ["set_file_slice", { path, start_line: 1, end_line: 1, content: "pwned" }],
    ["move_file", { source: "src/scratch.txt", destination: path, overwrite: true }],
    ["move_file", { source: path, destination: "src/moved-away" }],
    ["create_directory", { path }],
    ["py_update_definition", { path, ...code }],
    ["py_set_signature", { path, name: "f", content: "def f(a):" }],
    ["py_set_var_declaration", { path, name: "x", content: "x = 2" }],
    ["py_remove_def", { path, name: "f" }],
    ["py_add_def", { path, name: "g", content: "def g():\n    pass\n" }],
    ["py_move_def", { source: path, destination: "src/code.py", name: "f" }],
    ["py_move_def", { source: "src/code.py", destination: path, name: "h" }],
    ["py_region_wrap", { path, start_line: 1, end_line: 2, region_name: "r" }],
    ["ts_c_update_definition", { path, name: "f", content: "int f(void) { return 2; }" }],
    ["ts_cpp_update_definition", { path, name: "f", content: "int f() { return 2; }" }],
    ["ts_js_update_definition", { path, name: "f", content: "function f() { return 2; }" }],
  ];
}

async function layout(root: string): Promise<void> {
  for (const target of targets()) {
    const path = `${root}/${target}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    // `.git` is a directory (it holds hooks and config); every other target is a file.
    if (target === ".git") continue;
    // The host reads these two itself: they must stay valid JSON.
    await Deno.writeTextFile(
      path,
      target.endsWith(".json") && !target.includes("/") ? "{}\n" : CONTENT,
    );
  }
  await Deno.mkdir(`${root}/src`);
  await Deno.writeTextFile(`${root}/src/scratch.txt`, "scratch\n");
  await Deno.writeTextFile(`${root}/src/code.py`, "def h():\n    return 3\n");
  // Symlinked aliases: the whole root under another name, and git's directory.
  await Deno.symlink(".", `${root}/alias`);
  await Deno.symlink(".git", `${root}/g`);
}

Deno.test("protected paths: one host over every protected path and a folder of names in other cases", async (t) => {
  // Both cases launch the same host (one root, no options); the names in other cases live in
  // `case/`, as a rule matches at any depth, and each case snapshots the whole root around its calls.
  await using dir = await tempDir("toolhost-protected-");
  const root = dir.path;
  await layout(root);
  await Deno.mkdir(`${root}/case/sub/.Vscode`, { recursive: true });
  await Deno.writeTextFile(`${root}/case/sub/.Vscode/tasks.json`, "{}\n");
  await Deno.writeTextFile(`${root}/case/.ENVRC`, "export A=1\n");
  await using session = await connectStdio([root]);

  await t.step(
    "protected paths: every writing tool, every spelling, refused with protected_path and nothing changes",
    async () => {
      // The server made its state directory; a file in it is protected too.
      await Deno.writeTextFile(`${root}/.toolhost/item`, CONTENT);
      const before = await snapshot(root);

      const spellings = (target: string) => [
        target,
        `src/../${target}`,
        `alias/${target}`,
        ...(target.startsWith(".git/") ? [`g/${target.slice(5)}`] : []),
      ];
      const calls: Array<[string, Record<string, unknown>]> = targets().flatMap((target) =>
        spellings(target).flatMap(writes)
      );
      const wrong: string[] = [];
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < calls.length) {
          const [tool, args] = calls[next++]!;
          const result = await session.call(tool, args);
          const text = resultText(result);
          if (
            !result.isError ||
            !/^protected_path: "[^"]+" is protected: /.test(text)
          ) {
            wrong.push(`${tool} ${JSON.stringify(args)}: ${text.slice(0, 200)}`);
          }
        }
      }));
      assertEquals(wrong, [], "calls not refused with protected_path");
      assert(calls.length > 1_500, `${calls.length} calls`);
      assertEquals(await snapshot(root), before, "nothing changed on disk");

      // Reading stays allowed.
      assertEquals(resultText(await session.call("read_file", { path: ".git/config" })), CONTENT);
      assertEquals(resultText(await session.call("read_file", { path: "g/hooks/item" })), CONTENT);
      // A directory that holds a protected path is not moved either.
      await Deno.mkdir(`${root}/pkg/.vscode`, { recursive: true });
      await Deno.writeTextFile(`${root}/pkg/.vscode/settings.json`, "{}\n");
      const moved = await session.call("move_file", { source: "pkg", destination: "pkg2" });
      assertMatch(
        resultText(moved),
        /^protected_path: "pkg" is protected: it holds "pkg\/\.vscode"/,
      );
      assertEquals(await Deno.readTextFile(`${root}/pkg/.vscode/settings.json`), "{}\n");
      // Ordinary files are written as ever.
      const ok = await session.call("write_file", { path: "src/new.py", content: "y = 1\n" });
      assertFalse(ok.isError, resultText(ok));
    },
  );

  await t.step(
    "protected paths: names are protected without regard to case, as a case-insensitive file system would open them",
    async () => {
      const before = await snapshot(root);
      const refused: Array<[string, Record<string, unknown>]> = [
        ["write_file", { path: "case/.Vscode/tasks.json", content: "{}", create_parents: true }],
        ["write_file", { path: "case/sub/.Vscode/tasks.json", content: "{}" }],
        ["edit_file", { path: "case/.ENVRC", old_string: "A=1", new_string: "A=2" }],
        ["write_file", { path: "case/.GIT/hooks/pre-commit", content: "x", create_parents: true }],
        ["write_file", {
          path: "case/sub/.Idea/workspace.xml",
          content: "x",
          create_parents: true,
        }],
        ["write_file", { path: "case/TOOLHOST.JSON", content: "{}" }],
        ["write_file", { path: "case/.Mcp.Json", content: "{}" }],
        ["create_directory", { path: "case/.Husky" }],
        ["move_file", { source: "case/sub/.Vscode", destination: "case/elsewhere" }],
      ];
      for (const [tool, args] of refused) {
        const text = resultText(await session.call(tool, args));
        assertMatch(
          text,
          /^protected_path: "[^"]+" is protected: /,
          `${tool} ${JSON.stringify(args)}`,
        );
      }
      assertEquals(await snapshot(root), before, "nothing was made or changed");
      // A name that differs by more than case is an ordinary file.
      const ok = await session.call("write_file", {
        path: "case/vscode/tasks.json",
        content: "{}",
        create_parents: true,
      });
      assertFalse(ok.isError, resultText(ok));
    },
  );
});

Deno.test("protected paths: missing protected directories are not made, links and core.hooksPath lead to protected places, and the programs configured servers run are protected", async () => {
  await using dir = await tempDir("toolhost-protected-");
  const root = dir.path;
  await Deno.mkdir(`${root}/.git`);
  await Deno.mkdir(`${root}/tools/hooks`, { recursive: true });
  await Deno.symlink("../tools/hooks", `${root}/.git/hooks`);
  await Deno.writeTextFile(
    `${root}/.git/config`,
    "[core]\n\tbare = false\n\thooksPath = ci/hooks\n",
  );
  await Deno.writeTextFile(
    `${root}/.mcp.json`,
    JSON.stringify({
      mcpServers: {
        obs: { command: "./scripts/obs.sh" },
        py: { command: "python3", args: ["-u", "tools/server.py", "--port=1"] },
      },
    }),
  );
  await using session = await connectStdio([root]);
  const before = await snapshot(root);
  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "write_file",
      { path: "fresh/.vscode/tasks.json", content: "{}", create_parents: true },
      /VS Code/,
    ],
    [
      "write_file",
      { path: "fresh/.git/hooks/pre-commit", content: "x", create_parents: true },
      /git/,
    ],
    ["create_directory", { path: "fresh/.idea" }, /JetBrains/],
    ["write_file", { path: "tools/hooks/pre-commit", content: "x" }, /"\.git\/hooks" links to it/],
    [
      "write_file",
      { path: "ci/hooks/pre-commit", content: "x", create_parents: true },
      /hooksPath/,
    ],
    ["write_file", { path: "scripts/obs.sh", content: "x", create_parents: true }, /"obs"/],
    ["write_file", { path: "tools/server.py", content: "x" }, /"py" \(\.mcp\.json\)/],
  ];
  for (const [tool, args, why] of refused) {
    const text = resultText(await session.call(tool, args));
    assertMatch(text, /^protected_path: /, `${tool} ${JSON.stringify(args)}: ${text}`);
    assertMatch(text, why);
  }
  assertEquals(await snapshot(root), before, "nothing was made or changed");
  const ok = await session.call("write_file", { path: "tools/other.py", content: "y = 1\n" });
  assertFalse(ok.isError, resultText(ok));
});

Deno.test("protected paths: toolhost's own code, when a root holds it, and a ripgrep inside a root", async () => {
  const own = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  const parent = own.slice(0, own.lastIndexOf("/")) || "/";
  // No start-up walk: the root here is the checkout's parent, which may hold a great deal.
  const config = await loadConfig({
    roots: [parent],
    createStateDir: false,
    scan: false,
    ripgrep: `${own}/rg`,
  });
  const resolver = new Resolver(config.policy);
  assertMatch(resolver.protectedWhy(`${own}/host/cli.ts`) ?? "", /toolhost's own code/);
  assertMatch(resolver.protectedWhy(`${own}/deno.json`) ?? "", /toolhost's own code/);
  assertEquals(config.ripgrep.path, null);
  assertMatch((config.ripgrep as { reason: string }).reason, /lies inside a root/);
});

Deno.test("protected paths: the user lifts one with --unprotect; a config inside the root cannot", async () => {
  await using dir = await tempDir("toolhost-protected-");
  const root = dir.path;
  await Deno.writeTextFile(`${root}/toolhost.json`, JSON.stringify({ unprotect: [".envrc"] }));
  await using session = await connectStdio([root], { unprotect: [".vscode/**"] });
  const vscode = await session.call("write_file", {
    path: ".vscode/settings.json",
    content: "{}\n",
    create_parents: true,
  });
  assertFalse(vscode.isError, resultText(vscode));
  const envrc = await session.call("write_file", { path: ".envrc", content: "export A=1\n" });
  assertMatch(resultText(envrc), /^protected_path: ".envrc" is protected: direnv runs it/);
  assertMatch(
    session.stderr(),
    /toolhost\.json" lies inside a root and is not trusted.*ignored "unprotect"/,
  );
});

Deno.test("protected paths: what an agent plants in toolhost.json and .mcp.json never runs at the next task start", async () => {
  await using dir = await tempDir("toolhost-plant-");
  const root = dir.path;
  const marker = (name: string) => `${root}/src/${name}-ran`;
  await Deno.mkdir(`${root}/src`);
  await Deno.symlink(".", `${root}/alias`);
  const upstream = {
    upstream: {
      mcpServers: { x: { command: "sh", args: ["-c", `touch ${marker("upstream")}`] } },
    },
  };
  const peers = { mcpServers: { y: { command: "sh", args: ["-c", `touch ${marker("sink")}`] } } };
  {
    await using agent = await connectStdio([root]);
    for (const path of ["toolhost.json", "alias/toolhost.json", "src/../toolhost.json"]) {
      const result = await agent.call("write_file", { path, content: JSON.stringify(upstream) });
      assertMatch(resultText(result), /^protected_path: /);
    }
    for (const path of [".mcp.json", "alias/.mcp.json", "src/../.mcp.json"]) {
      const result = await agent.call("write_file", { path, content: JSON.stringify(peers) });
      assertMatch(resultText(result), /^protected_path: /);
    }
    // Planted elsewhere and moved into place: refused the same way.
    await agent.call("write_file", { path: "src/t.json", content: JSON.stringify(upstream) });
    const move = await agent.call("move_file", {
      source: "src/t.json",
      destination: "toolhost.json",
    });
    assertMatch(resultText(move), /^protected_path: /);
  }
  // The host starts again as `npx -y deno@2.9.6 task start` starts it, with efferent copy on.
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["task", "--quiet", "start", "--root", root],
    cwd: REPO,
    stderr: "pipe",
    env: clientEnv({ EFFERENT_COPY_ENABLE: "1" }),
  });
  const client = new Client({ name: "plant-test", version: "1" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "list_directory", arguments: { path: "src" } });
    assertFalse(result.isError === true);
  } finally {
    await client.close();
  }
  assertEquals(
    [...Deno.readDirSync(`${root}/src`)].map((entry) => entry.name).sort(),
    ["t.json"],
    "no planted command ran",
  );
  for (const name of ["toolhost.json", ".mcp.json"]) {
    assertFalse([...Deno.readDirSync(root)].some((entry) => entry.name === name), name);
  }
});
