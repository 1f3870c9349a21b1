import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
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
      "./\n  .gitignore\n  README.md\n  src/\n    main.py\n    pkg/\n      deep/ (1 entry, not shown)\n      mod.py\n" +
        "[not shown: below max_depth 3; call get_tree on such a directory]",
    );
    assertEquals(
      textOf(await host.call("get_tree", { path: "src", max_depth: 1 })),
      "src/\n  main.py\n  pkg/ (2 entries, not shown)\n" +
        "[not shown: below max_depth 1; call get_tree on such a directory]",
    );
  });
  await t.step(
    "a directory at the depth limit shows its entry count, by the same rules; an empty one none",
    async () => {
      await Deno.mkdir(`${root.path}/src/pkg/empty`);
      await write(`${root.path}/src/pkg/ignored/a.o`);
      await write(`${root.path}/src/pkg/ignored/.gitignore`, "*.o\n");
      await write(`${root.path}/src/pkg/deep/history.toml`); // hidden by policy: never counted
      const result = await host.call("get_tree", { path: "src", max_depth: 2 });
      assertEquals(
        textOf(result),
        "src/\n  main.py\n  pkg/\n    deep/ (1 entry, not shown)\n    empty/\n" +
          "    ignored/ (1 entry, not shown)\n    mod.py\n" +
          "[not shown: below max_depth 2; call get_tree on such a directory]",
      );
      assertEquals(result.structuredContent?.not_descended, [
        { path: "src/pkg/deep", entries: 1 },
        { path: "src/pkg/ignored", entries: 1 },
      ]);
      assertEquals(result.structuredContent?.truncated, false);
      const all = await host.call("get_tree", { path: "src", max_depth: 2, include_ignored: true });
      assertStringIncludes(textOf(all), "    ignored/ (2 entries, not shown)");
      await Deno.remove(`${root.path}/src/pkg/empty`);
      await Deno.remove(`${root.path}/src/pkg/ignored`, { recursive: true });
      await Deno.remove(`${root.path}/src/pkg/deep/history.toml`);
    },
  );
  await t.step("ignored entries on request", async () => {
    const all = textOf(
      await host.call("get_tree", {
        include_ignored: true,
        include_git_and_node_modules: true,
        max_depth: 1,
      }),
    );
    assertEquals(
      all,
      "./\n  .git/ (1 entry, not shown)\n  .gitignore\n  README.md\n  build/ (1 entry, not shown)\n" +
        "  src/ (2 entries, not shown)\n" +
        "[not shown: below max_depth 1; call get_tree on such a directory]",
    );
  });
  await t.step("long trees are cut with a note", async () => {
    const cut = textOf(await host.call("get_tree", { limit: 3 }));
    assert(
      cut.startsWith("./\n  .gitignore\n  README.md\n  src/\n[truncated after 3 entries: "),
      cut,
    );
  });
  await t.step("a symlink start is refused", async () => {
    assertMatch(textOf(await host.call("get_tree", { path: "src/out" })), /^path_denied: /);
  });
});
