import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, tempDir } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { IgnoreMatcher, parseGitignore } from "../../../tools/_gitignore.ts";

function matcher(text: string, base = ""): IgnoreMatcher {
  return IgnoreMatcher.EMPTY.with(base, parseGitignore(text));
}

Deno.test("gitignore rules follow git's semantics", async (t) => {
  await t.step("a name without a slash matches at any depth", () => {
    const m = matcher("*.log\nbuild\n");
    assert(m.ignored("a.log", false) && m.ignored("x/y/a.log", false));
    assert(m.ignored("build", true) && m.ignored("src/build", false));
    assertFalse(m.ignored("a.logx", false));
  });
  await t.step("a leading or inner slash anchors to the file's directory", () => {
    const m = matcher("/top.txt\ndoc/*.md\n");
    assert(m.ignored("top.txt", false));
    assertFalse(m.ignored("sub/top.txt", false));
    assert(m.ignored("doc/a.md", false));
    assertFalse(m.ignored("doc/x/a.md", false) || m.ignored("src/doc/a.md", false));
  });
  await t.step("a trailing slash matches directories only", () => {
    const m = matcher("out/\n");
    assert(m.ignored("out", true) && m.ignored("a/out", true));
    assertFalse(m.ignored("out", false));
  });
  await t.step("negation re-includes; the last matching rule wins", () => {
    const m = matcher("*.txt\n!keep.txt\nkeep.txt.bak\n");
    assert(m.ignored("a.txt", false));
    assertFalse(m.ignored("keep.txt", false));
    const again = matcher("!keep.txt\n*.txt\n");
    assert(again.ignored("keep.txt", false));
  });
  await t.step("** matches any number of directories", () => {
    const m = matcher("**/cache/**\na/**/z.c\n**/gen\n");
    assert(m.ignored("cache/x", false) && m.ignored("p/q/cache/x/y", false));
    assertFalse(m.ignored("cache", true));
    assert(m.ignored("a/z.c", false) && m.ignored("a/b/c/z.c", false));
    assertFalse(m.ignored("b/a/z.c", false));
    assert(m.ignored("gen", true) && m.ignored("deep/er/gen", false));
  });
  await t.step("comments, blank lines, escapes, classes and trailing spaces", () => {
    const m = matcher("# comment\n\n\\#hash\n\\!bang\nspace\\ \ntrail   \nfile[0-9].c\nx[!a].c\n");
    assert(m.ignored("#hash", false) && m.ignored("!bang", false));
    assert(m.ignored("space ", false) && m.ignored("trail", false));
    assertFalse(m.ignored("# comment", false));
    assert(m.ignored("file7.c", false) && !m.ignored("filex.c", false));
    assert(m.ignored("xb.c", false) && !m.ignored("xa.c", false));
  });
  await t.step("a deeper file wins over a shallower one", () => {
    const m = matcher("*.gen\n").with("sub", parseGitignore("!keep.gen\n"));
    assert(m.ignored("a.gen", false) && m.ignored("other/keep.gen", false));
    assertFalse(m.ignored("sub/keep.gen", false));
    assert(m.ignored("sub/x.gen", false));
  });
});

/** A tree that exercises every rule, with ripgrep's answer to compare against. */
async function trickyTree(root: string): Promise<void> {
  const files: Record<string, string> = {
    ".gitignore":
      "*.log\n!important.log\n/root_only.txt\nbuild/\ndocs/**/draft_*\n**/tmp\nspace\\ \n",
    "root_only.txt": "",
    "a/root_only.txt": "",
    "a.log": "",
    "important.log": "",
    "a/b/c.log": "",
    "a/b/important.log": "",
    "build/x.o": "",
    "src/build": "not a directory, so not ignored\n",
    "docs/draft_1.md": "",
    "docs/x/y/draft_2.md": "",
    "docs/final.md": "",
    "p/tmp/t.txt": "",
    "tmp": "file named tmp\n",
    "space ": "",
    "nested/.gitignore": "!*.log\n*.txt\n!keep.txt\n/anch/\n",
    "nested/n.log": "",
    "nested/n.txt": "",
    "nested/keep.txt": "",
    "nested/anch/a.py": "",
    "nested/deep/anch/a.py": "",
    "nested/deep/anch/a.rs": "",
    "nested/deep/.gitignore": "*.py\n",
    "nested/deep/d.py": "",
    "nested/deep/d.rs": "",
    "re/.gitignore": "ignored_dir/\n!ignored_dir/back.txt\n",
    "re/ignored_dir/back.txt": "",
    "node_modules/m/index.js": "",
    ".git/config": "",
    ".hidden/h.txt": "",
  };
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

Deno.test("search_files applies .gitignore the same way with ripgrep and with the walker", {
  ignore: !canRun("rg"),
}, async () => {
  await using root = await tempDir();
  await trickyTree(root.path);
  await using js = await launchHost({ roots: [root.path], ripgrep: "off" });
  await using rg = await launchHost({ roots: [root.path] });
  assertMatch(rg.session.stderr(), /ripgrep \S+ in use/, "ripgrep is installed and runs");
  const list = async (host: typeof js, args: Record<string, unknown>) =>
    (await host.call("search_files", { pattern: "*", limit: 5000, ...args }))
      .structuredContent?.files as string[];
  const expected = [
    ".gitignore",
    ".hidden/h.txt",
    "a/b/important.log",
    "a/root_only.txt",
    "docs/final.md",
    "important.log",
    "nested/.gitignore",
    "nested/deep/.gitignore",
    "nested/deep/anch/a.rs",
    "nested/deep/d.rs",
    "nested/keep.txt",
    "nested/n.log",
    "re/.gitignore",
    "src/build",
  ];
  assertEquals(await list(js, {}), expected);
  assertEquals(await list(rg, {}), expected);
  for (
    const args of [{ include_ignored: true }, { include_git_and_node_modules: true }, {
      path: "nested",
    }]
  ) {
    assertEquals(await list(rg, args), await list(js, args), JSON.stringify(args));
  }
  // Below a .gitignore'd start's ancestors, ripgrep cannot see their rules: the walker answers.
  assertEquals(await list(rg, { path: "nested/deep" }), [
    "nested/deep/.gitignore",
    "nested/deep/anch/a.rs",
    "nested/deep/d.rs",
  ]);
  assertEquals(await list(js, { path: "nested/deep" }), await list(rg, { path: "nested/deep" }));
});
