/**
 * get_file_summary and derive_code_path on real and realistic code.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

const REPO = new URL("../../../", import.meta.url).pathname;

Deno.test("get_file_summary summarizes Python, TOML, Markdown, C and TypeScript", async () => {
  await using root = await tempDir();
  const stdlib = new TextDecoder().decode(
    (await new Deno.Command("python3", {
      args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
    }).output()).stdout,
  ).trim();
  await Deno.copyFile(`${stdlib}/argparse.py`, `${root.path}/argparse.py`);
  await Deno.copyFile(`${REPO}README.md`, `${root.path}/README.md`);
  await Deno.copyFile(`${REPO}tools/registry.ts`, `${root.path}/registry.ts`);
  await Deno.writeTextFile(
    `${root.path}/pyproject.toml`,
    'name = "x"\n[project]\nversion = "1"\n[[tool.items]]\na = 1\n',
  );
  await Deno.writeTextFile(
    `${root.path}/m.c`,
    "#include <stdio.h>\nstruct S { int a; };\nint f(void);\nint g(int x) { return f() + x; }\n",
  );
  await using host = await testHost({ roots: [root.path] });
  const sections = async (path: string) => {
    const result = await host.call("get_file_summary", { path });
    assertFalse(result.isError, textOf(result));
    return (result.structuredContent as { sections: Record<string, string[]> }).sections;
  };
  const py = await sections("argparse.py");
  assert(py.classes!.some((c) => c.startsWith("ArgumentParser (line")), "ArgumentParser");
  assert(
    py.imports!.some((i) => i.startsWith("import os")) || py.imports!.some((i) => i.includes("os")),
    "imports",
  );
  assert(py.constants!.some((c) => c.startsWith("SUPPRESS ")), "SUPPRESS constant");
  assert(py.functions!.some((f) => f.startsWith("_copy_items")), "module-level functions");
  const md = await sections("README.md");
  assertEquals(md.headings![0], "# toolhost (line 1)");
  const toml = await sections("pyproject.toml");
  assertEquals(toml, {
    "top-level keys": ["name"],
    tables: ["[project] (line 2)", "[[tool.items]] (line 4)"],
  });
  const c = await sections("m.c");
  assertEquals(c.includes, ["#include <stdio.h>"]);
  assertEquals(c.types, ["struct S (line 2)"]);
  assertEquals(c.functions, ["f (prototype) (line 3)", "g (line 4)"]);
  const ts = await sections("registry.ts");
  assert(ts.imports!.some((i) => i.includes('from "zod"')));
  assert(ts.exports!.some((e) => e.startsWith("class Registry")));
  assert(ts.exports!.some((e) => e.startsWith("function errorResult")));
});

Deno.test("derive_code_path follows calls across files, marks cycles, and says it is heuristic", async () => {
  await using root = await tempDir();
  await Deno.mkdir(`${root.path}/pkg`);
  await Deno.writeTextFile(
    `${root.path}/pkg/app.py`,
    [
      "from pkg.util import load, save",
      "",
      "class App:",
      "    def run(self):",
      "        data = load('x')",
      "        self.process(data)",
      "        save(data)",
      "",
      "    def process(self, data):",
      "        return walk(data)",
      "",
      "def walk(data):",
      "    return walk(data[1:]) if data else len(data)",
      "",
      "def main():",
      "    App().run()",
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    `${root.path}/pkg/util.py`,
    "def load(path):\n    return open(path).read()\n\ndef save(data):\n    print(data)\n",
  );
  await Deno.writeTextFile(
    `${root.path}/other.ts`,
    "export function main() { helper(); }\nfunction helper() {}\n",
  );
  await using host = await testHost({ roots: [root.path] });
  const result = await host.call("derive_code_path", { target: "pkg/app.py:main", max_depth: 5 });
  assertFalse(result.isError, textOf(result));
  const text = textOf(result);
  assertStringIncludes(text, "heuristic");
  const edges = (result.structuredContent as {
    edges: Array<
      { from: string; to: string; call_site: string; defined_at: string; cycle: boolean }
    >;
  }).edges;
  const pairs = edges.map((e) =>
    `${e.from} -> ${e.to} @ ${e.call_site} (${e.defined_at})${e.cycle ? " cycle" : ""}`
  );
  assertEquals(pairs, [
    "main -> App.run @ pkg/app.py:16 (pkg/app.py:4-7)",
    "App.run -> load @ pkg/app.py:5 (pkg/util.py:1-2)",
    "App.run -> App.process @ pkg/app.py:6 (pkg/app.py:9-10)",
    "App.process -> walk @ pkg/app.py:10 (pkg/app.py:12-13)",
    "walk -> walk @ pkg/app.py:13 (pkg/app.py:12-13) cycle",
    "App.run -> save @ pkg/app.py:7 (pkg/util.py:4-5)",
  ]);
  const shallow = await host.call("derive_code_path", { target: "pkg/app.py:main", max_depth: 1 });
  assertEquals((shallow.structuredContent as { edges: unknown[] }).edges.length, 1);
  assertMatch(
    textOf(await host.call("derive_code_path", { target: "main" })),
    /^ambiguous_match: .*other\.ts/,
  );
  assertMatch(textOf(await host.call("derive_code_path", { target: "nope" })), /^not_found: /);
  const ts = await host.call("derive_code_path", { target: "other.ts:main" });
  assertEquals((ts.structuredContent as { edges: Array<{ to: string }> }).edges.map((e) => e.to), [
    "helper",
  ]);
});
