import { assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, tempDir, testHost, textOf } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";

async function write(path: string, text = "x\n"): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

type Files = { files: string[]; total: number; truncated: boolean; next_offset?: number };

Deno.test("search_files finds files by name or path glob, sorted and paged", async (t) => {
  await using root = await tempDir();
  for (const p of ["a.py", "src/b.py", "src/c.ts", "src/x/d.py", "src/x/e.pyc", "lib/f.py"]) {
    await write(`${root.path}/${p}`);
  }
  await using host = await testHost({ roots: [root.path] });
  const files = async (args: Record<string, unknown>) =>
    (await host.call("search_files", args)).structuredContent as Files;
  await t.step("a name glob matches at any depth", async () => {
    assertEquals((await files({ pattern: "*.py" })).files, [
      "a.py",
      "lib/f.py",
      "src/b.py",
      "src/x/d.py",
    ]);
    assertEquals((await files({ pattern: "*.{ts,pyc}" })).files, ["src/c.ts", "src/x/e.pyc"]);
  });
  await t.step("a path glob matches relative to path", async () => {
    assertEquals((await files({ path: "src", pattern: "x/*.py" })).files, ["src/x/d.py"]);
    assertEquals((await files({ pattern: "src/**/*.py" })).files, ["src/b.py", "src/x/d.py"]);
  });
  await t.step("pages say how many more and which offset gets them", async () => {
    const first = await host.call("search_files", { pattern: "*", limit: 4 });
    assertMatch(textOf(first), /\[2 more: call again with offset 4\]$/);
    assertEquals(first.structuredContent, {
      files: ["a.py", "lib/f.py", "src/b.py", "src/c.ts"],
      total: 6,
      truncated: true,
      next_offset: 4,
      engine: "walker",
      skipped: { count: 0 },
    });
    assertEquals((await files({ pattern: "*", limit: 4, offset: 4 })).files, [
      "src/x/d.py",
      "src/x/e.pyc",
    ]);
  });
  await t.step("no match explains the glob; bad input is an error", async () => {
    assertMatch(textOf(await host.call("search_files", { pattern: "b" })), /use "\*b\*"/);
    assertMatch(textOf(await host.call("search_files", { pattern: "[a" })), /^invalid_argument: /);
    assertMatch(
      textOf(await host.call("search_files", { path: "a.py", pattern: "*" })),
      /^not_a_directory: /,
    );
  });
});

Deno.test("search_files lists nothing through symlinks and nothing blacklisted", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await write(`${outside.path}/secret.py`);
  await Deno.symlink(outside.path, `${root.path}/out`);
  await Deno.symlink(`${outside.path}/secret.py`, `${root.path}/link.py`);
  await write(`${root.path}/in.py`);
  await write(`${root.path}/private/key.py`);
  await write(`${root.path}/x_history.toml`);
  for (const ripgrep of ["off", "auto"]) {
    await using host = await testHost({
      roots: [root.path],
      ripgrep,
      config: { blacklist: ["private"] },
    });
    const result = await host.call("search_files", { pattern: "*", include_ignored: true });
    assertEquals((result.structuredContent as Files).files, ["in.py", "toolhost.json"], ripgrep);
    assertFalse(textOf(result).includes("secret"));
    const escape = await host.call("search_files", { path: "out", pattern: "*" });
    assertMatch(textOf(escape), /^path_denied: /);
  }
});

Deno.test("search_files gives the same results with ripgrep and with the walker", {
  ignore: !canRun("rg"),
}, async () => {
  await using root = await tempDir();
  const names = [
    "a.py",
    "a.txt",
    "a-b.py",
    "a.b/c.py",
    "Z.py",
    "é.py",
    "space name.py",
    ".hidden.py",
  ];
  for (let i = 0; i < 60; i++) {
    await write(`${root.path}/d${i % 7}/s${i % 3}/${names[i % names.length]}`);
  }
  await write(`${root.path}/.gitignore`, "d1/\n*.txt\n");
  await write(`${root.path}/d2/.gitignore`, "!*.txt\n");

  // Both in the launch users run: the walker alone, and ripgrep.
  await using js = await launchHost({ roots: [root.path], ripgrep: "off" });
  await using rg = await launchHost({ roots: [root.path] });
  assertMatch(rg.session.stderr(), /ripgrep \S+ in use/, "ripgrep is installed and runs");
  for (
    const args of [
      { pattern: "*" },
      { pattern: "*.py" },
      { pattern: "d*/s1/*" },
      { pattern: "*.txt", include_ignored: true },
      { pattern: "*", limit: 7, offset: 14 },
      { pattern: "?.py", path: "d3" },
    ]
  ) {
    const a = await js.call("search_files", args);
    const b = await rg.call("search_files", args);
    const { engine: viaRg, ...fromRg } = b.structuredContent ?? {};
    const { engine: viaWalker, ...fromWalker } = a.structuredContent ?? {};
    assertEquals(fromRg, fromWalker, JSON.stringify(args));
    // Below a .gitignore (a start under the root), ripgrep's rules would differ: the walker lists.
    const expected = "path" in args ? "walker" : "ripgrep";
    assertEquals([viaRg, viaWalker], [expected, "walker"], JSON.stringify(args));
    assertEquals(textOf(b), textOf(a));
  }
  const warnings = rg.session.stderr().split("\n").filter((line) => /warn: ripgrep/.test(line));
  assertEquals(warnings, [], "ripgrep ran for every search (no fallback)");
});

Deno.test(
  "ripgrep can run inside the Landlock-confined tool worker",
  { ignore: !canRun("rg") },
  async () => {
    await using root = await tempDir();
    await write(`${root.path}/a.py`);
    await using host = await launchHost({ roots: [root.path] });
    const result = await host.call("search_files", { pattern: "*.py" });
    assertEquals((result.structuredContent as Files).files, ["a.py"]);
    assertEquals(result.structuredContent?.engine, "ripgrep", "no fallback to the walker");
    assertMatch(host.session.stderr(), /confined by Landlock|Landlock is not active/);
  },
);
