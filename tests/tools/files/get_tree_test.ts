import { assert, assertEquals, assertMatch } from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

async function write(path: string, text = "x\n"): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("get_tree shows an indented tree to max_depth, bounded, never through symlinks", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await write(`${outside.path}/secret.txt`);
  for (
    const p of [
      "README.md",
      "src/main.py",
      "src/pkg/mod.py",
      "src/pkg/deep/x.py",
      "build/out.o",
      ".git/HEAD",
    ]
  ) {
    await write(`${root.path}/${p}`);
  }
  await write(`${root.path}/.gitignore`, "build/\n");
  await Deno.symlink(outside.path, `${root.path}/src/out`);
  await using host = await testHost({ roots: [root.path] });
  await t.step("directories end with /, children indented under them", async () => {
    assertEquals(
      textOf(await host.call("get_tree", {})),
      "./\n  .gitignore\n  README.md\n  src/\n    main.py\n    pkg/\n      deep/\n      mod.py",
    );
    assertEquals(
      textOf(await host.call("get_tree", { path: "src", max_depth: 1 })),
      "src/\n  main.py\n  pkg/",
    );
  });
  await t.step("ignored entries on request", async () => {
    const all = textOf(
      await host.call("get_tree", {
        include_ignored: true,
        include_git_and_node_modules: true,
        max_depth: 1,
      }),
    );
    assertEquals(all, "./\n  .git/\n  .gitignore\n  README.md\n  build/\n  src/");
  });
  await t.step("long trees are cut with a note", async () => {
    const cut = textOf(await host.call("get_tree", { max_lines: 3 }));
    assert(
      cut.startsWith("./\n  .gitignore\n  README.md\n  src/\n[truncated after 3 entries: "),
      cut,
    );
  });
  await t.step("a symlink start is refused", async () => {
    assertMatch(textOf(await host.call("get_tree", { path: "src/out" })), /^path_denied: /);
  });
});
