/**
 * The git tools' commands, with a sandbox that records them: what every
 * git command is given (overrides, environment, read-only access, the
 * call's signal), revisions and paths refused before anything runs, the
 * repository's filter drivers overridden, and git's failures as errors.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir, textOf, toolContext } from "../../_helpers.ts";
import { GIT_TOOLS } from "../../../tools/git/mod.ts";
import { GIT_ENV, SAFE_CONFIG } from "../../../tools/git/_git.ts";
import type { SandboxRequest, SandboxResult } from "../../../tools/sandbox.ts";
import type { Tool } from "../../../tools/tool.ts";
import { callTool, ScriptedSandbox, withSandbox } from "./_repos.ts";

function tool(name: string): Tool {
  const found = GIT_TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** A repository at `top` with a HEAD, no filter drivers, and `answer` for the tool's own command. */
function repoAt(
  top: string,
  answer: (request: SandboxRequest) => Partial<SandboxResult> = () => ({}),
  filters = "",
): ScriptedSandbox {
  return new ScriptedSandbox((request) => {
    if (request.argv.includes("rev-parse")) return { stdout: `${top}\n${"a".repeat(40)}\n` };
    if (request.argv.includes("config")) {
      return filters === "" ? { exitCode: 1 } : { stdout: filters };
    }
    return answer(request);
  });
}

/** The arguments after the global options and `-c` overrides. */
function commandOf(request: SandboxRequest): string[] {
  const argv = [...request.argv];
  let i = 1;
  while (i < argv.length && (argv[i]!.startsWith("--") || argv[i] === "-c")) {
    i += argv[i] === "-c" ? 2 : 1;
  }
  return argv.slice(i);
}

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["git_status", {}],
  ["get_git_diff", { path: "." }],
  ["get_git_diff", { path: "src", base_rev: "HEAD~1" }],
  ["get_git_diff", { path: "src", base_rev: "v1", head_rev: "v2" }],
  ["git_log", { path: "src", rev: "main" }],
  ["git_show", { rev: "HEAD~1" }],
  ["git_show", { rev: "HEAD~1", path: "src/a.ts" }],
  ["git_blame", { path: "src/a.ts" }],
  ["git_blame", { path: "src/a.ts", rev: "HEAD~1" }],
];

Deno.test("every git command runs read-only in the sandbox with git's program-running settings overridden", async () => {
  await using root = await tempDir();
  for (const [name, args] of CALLS) {
    const sandbox = repoAt(root.path);
    const ctx = withSandbox(await toolContext(root.path), sandbox);
    await callTool(tool(name), args, ctx);
    // A commit's changed names come first (the paths the host hides are left out of what it shows).
    const names = name === "git_show" && args.path === undefined ? 1 : 0;
    assertEquals(
      sandbox.requests.length,
      3 + names,
      `${name}: rev-parse, config, ${names ? "the names, " : ""}the command`,
    );
    for (const request of sandbox.requests) {
      assertEquals(request.argv.slice(0, 3), ["git", "--no-pager", "--literal-pathspecs"]);
      for (const [key, value] of SAFE_CONFIG) {
        const at = request.argv.indexOf(`${key}=${value}`);
        assert(at > 0 && request.argv[at - 1] === "-c", `${name}: -c ${key}=${value}`);
      }
      assertEquals(request.access, "read");
      assert(request.timeoutMs > 0 && request.timeoutMs <= 60_000);
      assertEquals(request.signal, ctx.signal);
      assertEquals(request.tool, name);
      for (const [key, value] of Object.entries(GIT_ENV)) {
        assertEquals(request.env?.[key], value, key);
      }
    }
    const command = commandOf(sandbox.requests.at(-1)!);
    assertEquals(sandbox.requests.at(-1)!.cwd, root.path);
    if (["get_git_diff", "git_show", "git_log"].includes(name) && args.path !== "src/a.ts") {
      for (const flag of ["--no-ext-diff", "--no-textconv"]) {
        assert(command.includes(flag), `${name} ${flag}`);
      }
    }
    if (name === "git_blame") assert(command.includes("--no-textconv"));
    if (name === "get_git_diff" || name === "git_status") {
      assert(command.includes("--ignore-submodules=dirty"), `${name} leaves submodules alone`);
    }
  }
});

Deno.test("revisions and paths after --end-of-options and --, never as options", async () => {
  await using root = await tempDir();
  const seen = async (name: string, args: Record<string, unknown>) => {
    const sandbox = repoAt(root.path);
    await callTool(tool(name), args, withSandbox(await toolContext(root.path), sandbox));
    return commandOf(sandbox.requests[2]!);
  };
  assertEquals(
    (await seen("get_git_diff", { path: "-n", base_rev: "v1", head_rev: "v2" })).slice(-5),
    ["--end-of-options", "v1", "v2", "--", "-n"],
  );
  assertEquals((await seen("git_log", { path: "-n", rev: "main" })).slice(-4), [
    "--end-of-options",
    "main",
    "--",
    "-n",
  ]);
  assertEquals((await seen("git_show", { rev: "v1", path: "-n" })).slice(-2), [
    "--end-of-options",
    "v1:-n",
  ]);
  assertEquals((await seen("git_blame", { path: "-n", rev: "v1" })).slice(-3), ["v1", "--", "-n"]);
});

Deno.test("git tools refuse revisions git could take as options or as rev:path, before running anything", async (t) => {
  await using root = await tempDir();
  const refused: Array<[string, Record<string, unknown>]> = [
    ["get_git_diff", { path: ".", base_rev: "--output=/tmp/x" }],
    ["get_git_diff", { path: ".", base_rev: "HEAD", head_rev: "-p" }],
    ["get_git_diff", { path: ".", head_rev: "HEAD" }],
    ["git_log", { rev: "--all" }],
    ["git_log", { rev: "HEAD\n--output=/tmp/x" }],
    ["git_show", { rev: "-n1" }],
    ["git_show", { rev: "HEAD:secret.txt" }],
    ["git_show", { rev: " HEAD" }],
    ["git_blame", { path: "a.txt", rev: "--contents=/etc/passwd" }],
    ["git_blame", { path: "a.txt", start_line: 5, end_line: 2 }],
  ];
  for (const [name, args] of refused) {
    await t.step(`${name} ${JSON.stringify(args)}`, async () => {
      const sandbox = repoAt(root.path);
      const result = await callTool(
        tool(name),
        args,
        withSandbox(await toolContext(root.path), sandbox),
      );
      assertEquals(result.isError, true);
      assertMatch(textOf(result), /^invalid_argument: /);
      assertEquals(sandbox.requests.length, 0);
    });
  }
});

Deno.test("git tools deny paths outside the roots or hidden, before running anything", async (t) => {
  await using root = await tempDir();
  const denied: Array<[string, string, RegExp]> = [
    ["git_status", "../elsewhere", /^path_denied: .*outside the allowed roots/],
    ["get_git_diff", "/etc", /^path_denied: /],
    ["git_log", "src/../../x", /^path_denied: /],
    ["git_blame", ".toolhost/todos.json", /^path_denied: .*hidden/],
    ["git_show", "a\u0000b", /^invalid_path: /],
  ];
  for (const [name, path, expected] of denied) {
    await t.step(`${name} ${JSON.stringify(path)}`, async () => {
      const sandbox = repoAt(root.path);
      const args = name === "git_show" ? { rev: "HEAD", path } : { path };
      const result = await callTool(
        tool(name),
        args,
        withSandbox(await toolContext(root.path), sandbox),
      );
      assertEquals(result.isError, true);
      assertMatch(textOf(result), expected);
      assertEquals(sandbox.requests.length, 0);
    });
  }
});

Deno.test("the repository's filter drivers are overridden with empty values, whatever their names", async () => {
  await using root = await tempDir();
  const filters =
    "filter.evil.clean\nrm -rf ~\0filter.x=y z.smudge\ncurl evil\0filter.evil.required\ntrue\0filter.bare.process\0";
  const sandbox = repoAt(root.path, () => ({}), filters);
  await callTool(tool("git_status"), {}, withSandbox(await toolContext(root.path), sandbox));
  const config = sandbox.requests[1]!;
  assertEquals(commandOf(config), ["config", "-z", "--get-regexp", "^filter\\."]);
  assertEquals(config.env?.GIT_CONFIG_COUNT, undefined, "reading config needs no override");
  const env = sandbox.requests[2]!.env ?? {};
  assertEquals(env.GIT_CONFIG_COUNT, "4");
  const keys = [0, 1, 2, 3].map((i) => env[`GIT_CONFIG_KEY_${i}`]);
  assertEquals(keys, [
    "filter.evil.clean",
    "filter.x=y z.smudge",
    "filter.evil.required",
    "filter.bare.process",
  ]);
  for (const i of [0, 1, 2, 3]) assertEquals(env[`GIT_CONFIG_VALUE_${i}`], "");
});

Deno.test("git's failures, time-outs and cancellations are errors the model can act on", async (t) => {
  await using root = await tempDir();
  const cases: Array<[Partial<SandboxResult>, RegExp]> = [
    [
      { timedOut: true, exitCode: null, signal: "SIGKILL" },
      /^timeout: git log ran past its 30 s limit/,
    ],
    [{ cancelled: true, exitCode: null }, /^cancelled: /],
    [
      { exitCode: 128, stderr: "fatal: bad revision 'nope'\n" },
      /^invalid_argument: git log failed: fatal: bad revision 'nope'/,
    ],
    [
      { exitCode: 128, stderr: "fatal: something odd\n\x1b[31mred\n" },
      /^git_error: git log failed: fatal: something odd; \?\[31mred$/,
    ],
    [{ stdout: "x", stdoutBytes: 64 * 1024 * 1024 }, /^too_large: .*narrower path/],
  ];
  for (const [answer, expected] of cases) {
    await t.step(String(expected), async () => {
      const sandbox = repoAt(root.path, () => answer);
      const result = await callTool(
        tool("git_log"),
        {},
        withSandbox(await toolContext(root.path), sandbox),
      );
      assertEquals(result.isError, true);
      assertMatch(textOf(result), expected);
    });
  }
  await t.step("a path with no repository says so", async () => {
    const sandbox = new ScriptedSandbox(() => ({
      exitCode: 128,
      stderr: "fatal: not a git repository (or any of the parent directories): .git\n",
    }));
    const result = await callTool(
      tool("git_status"),
      { path: "sub/x.txt" },
      withSandbox(await toolContext(root.path), sandbox),
    );
    assertMatch(textOf(result), /^not_found: "sub\/x.txt" is not inside a git repository/);
    assertEquals(sandbox.requests.map((r) => r.cwd), [
      `${root.path}/sub`,
      `${root.path}/sub/x.txt`,
      root.path,
    ]);
  });
  await t.step("a repository whose top is outside the roots is refused", async () => {
    const sandbox = repoAt("/elsewhere");
    const result = await callTool(
      tool("git_status"),
      {},
      withSandbox(await toolContext(root.path), sandbox),
    );
    assertMatch(
      textOf(result),
      /^path_denied: The repository at "\/elsewhere" is outside the roots/,
    );
    assertStringIncludes(sandbox.requests.map((r) => r.argv.join(" ")).join("\n"), "rev-parse");
    assertEquals(sandbox.requests.length, 1);
  });
});

Deno.test("what the host hides is left out of a status, a diff and a commit, and named in a note", async (t) => {
  await using root = await tempDir();
  const oid = "a".repeat(40);
  const answer = (request: SandboxRequest): Partial<SandboxResult> => {
    const command = commandOf(request);
    if (command.includes("--name-only")) return { stdout: "a.txt\0history.toml\0sub/id_rsa\0" };
    if (command[0] !== "status") return { stdout: "" };
    const entry = (path: string) => `1 .M N... 100644 100644 100644 ${oid} ${oid} ${path}`;
    return { stdout: [entry("a.txt"), entry("history.toml"), "? sub/id_rsa", ""].join("\0") };
  };
  const note = "[2 paths the host hides left out: history.toml, sub/id_rsa]";
  for (
    const [name, args] of [["get_git_diff", { path: "." }], ["git_show", { rev: "HEAD" }]] as const
  ) {
    await t.step(`${name}: excluded by pathspecs of their own`, async () => {
      const sandbox = repoAt(root.path, answer);
      const ctx = withSandbox(await toolContext(root.path), sandbox);
      const result = await callTool(tool(name), args, ctx);
      const last = sandbox.requests.at(-1)!;
      assertEquals(
        last.argv.includes("--literal-pathspecs"),
        false,
        "the pathspecs say their magic",
      );
      assertEquals(commandOf(last).slice(-3), [
        ":(literal).",
        ":(top,exclude,literal)history.toml",
        ":(top,exclude,literal)sub/id_rsa",
      ]);
      assertStringIncludes(textOf(result), note);
    });
  }
  await t.step("git_status: not listed", async () => {
    const sandbox = repoAt(root.path, answer);
    const ctx = withSandbox(await toolContext(root.path), sandbox);
    const result = await callTool(tool("git_status"), {}, ctx);
    const status = result.structuredContent as { unstaged: unknown[]; untracked: unknown[] };
    assertEquals(status.unstaged, [{ status: "modified", path: "a.txt" }]);
    assertEquals(status.untracked, []);
    assertStringIncludes(textOf(result), note);
  });
});
