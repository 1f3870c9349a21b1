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
import { npmFile, tempDir, testHost, textOf } from "../../_helpers.ts";
import type { CallEdge } from "../../../tools/analysis/derive_code_path.ts";

const REPO = new URL("../../../", import.meta.url).pathname;

async function pythonStdlib(): Promise<string> {
  const output = await new Deno.Command("python3", {
    args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
  }).output();
  return new TextDecoder().decode(output.stdout).trim();
}

async function copyTree(from: string, to: string, test: (name: string) => boolean): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    if (entry.isFile && test(entry.name)) {
      await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
    }
  }
}

// The cases share one host (a host costs its workers' start): each works in a subdirectory of the
// root of its own, and every derive_code_path call scans only that subdirectory.
Deno.test("get_file_summary and derive_code_path, each case in a directory of its own", async (t) => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });

  await t.step("get_file_summary summarizes Python, TOML, Markdown, C and TypeScript", async () => {
    const dir = `${root.path}/summary`;
    await Deno.mkdir(dir);
    const stdlib = await pythonStdlib();
    await Deno.copyFile(`${stdlib}/argparse.py`, `${dir}/argparse.py`);
    await Deno.copyFile(`${REPO}README.md`, `${dir}/README.md`);
    await Deno.copyFile(`${REPO}tools/registry.ts`, `${dir}/registry.ts`);
    await Deno.writeTextFile(
      `${dir}/pyproject.toml`,
      'name = "x"\n[project]\nversion = "1"\n[[tool.items]]\na = 1\n',
    );
    await Deno.writeTextFile(
      `${dir}/m.c`,
      "#include <stdio.h>\nstruct S { int a; };\nint f(void);\nint g(int x) { return f() + x; }\n",
    );
    const sections = async (path: string) => {
      const result = await host.call("get_file_summary", { path });
      assertFalse(result.isError, textOf(result));
      return (result.structuredContent as { sections: Record<string, string[]> }).sections;
    };
    const py = await sections("summary/argparse.py");
    assert(py.classes!.some((c) => c.startsWith("ArgumentParser (line")), "ArgumentParser");
    assert(
      py.imports!.some((i) => i.startsWith("import os")) ||
        py.imports!.some((i) => i.includes("os")),
      "imports",
    );
    assert(py.constants!.some((c) => c.startsWith("SUPPRESS ")), "SUPPRESS constant");
    assert(py.functions!.some((f) => f.startsWith("_copy_items")), "module-level functions");
    const md = await sections("summary/README.md");
    assertEquals(md.headings![0], "# toolhost (line 1)");
    const toml = await sections("summary/pyproject.toml");
    assertEquals(toml, {
      "top-level keys": ["name"],
      tables: ["[project] (line 2)", "[[tool.items]] (line 4)"],
    });
    const c = await sections("summary/m.c");
    assertEquals(c.includes, ["#include <stdio.h>"]);
    assertEquals(c.types, ["struct S (line 2)"]);
    assertEquals(c.functions, ["f (prototype) (line 3)", "g (line 4)"]);
    await Deno.writeTextFile(
      `${dir}/notes.txt`,
      Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
    );
    const notes = await host.call("get_file_summary", { path: "summary/notes.txt" });
    assertEquals(notes.structuredContent, {
      path: "summary/notes.txt",
      kind: "text",
      lines: 12,
      bytes: 12 * 7 + 3 * 1,
      sections: { "first lines": Array.from({ length: 10 }, (_, i) => `line ${i + 1}`) },
    });
    await Deno.writeFile(`${dir}/blob.bin`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    assertMatch(
      textOf(await host.call("get_file_summary", { path: "summary/blob.bin" })),
      /^summary\/blob\.bin: binary/,
    );
    const napi = npmFile("node-addon-api/napi-inl.h")!;
    await Deno.copyFile(napi, `${dir}/napi-inl.h`);
    const header = await host.call("get_file_summary", { path: "summary/napi-inl.h" });
    assertEquals((header.structuredContent as { kind: string }).kind, "cpp", "a C++ .h header");
    const cpp = (header.structuredContent as { sections: Record<string, string[]> }).sections;
    assert(cpp.functions!.some((f) => f.endsWith("Env::Global (line 644)")), cpp.functions!.join());
    assert(cpp.types!.some((t) => t.startsWith("namespace Napi ")), cpp.types!.join());
    const ts = await sections("summary/registry.ts");
    assert(ts.imports!.some((i) => i.includes('from "zod"')));
    assert(ts.exports!.some((e) => e.startsWith("class Registry")));
    assert(ts.exports!.some((e) => e.startsWith("function errorResult")));
  });

  await t.step(
    "derive_code_path follows calls across files, marks cycles, and says it is heuristic",
    async () => {
      const dir = `${root.path}/calls`;
      await Deno.mkdir(`${dir}/pkg`, { recursive: true });
      await Deno.writeTextFile(
        `${dir}/pkg/app.py`,
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
        `${dir}/pkg/util.py`,
        "def load(path):\n    return open(path).read()\n\ndef save(data):\n    print(data)\n",
      );
      await Deno.writeTextFile(
        `${dir}/other.ts`,
        "export function main() { helper(); }\nfunction helper() {}\n",
      );
      const result = await host.call("derive_code_path", {
        name: "calls/pkg/app.py:main",
        max_depth: 5,
        path: "calls",
      });
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
        "main -> App.run @ calls/pkg/app.py:16 (calls/pkg/app.py:4-7)",
        "App.run -> load @ calls/pkg/app.py:5 (calls/pkg/util.py:1-2)",
        "App.run -> App.process @ calls/pkg/app.py:6 (calls/pkg/app.py:9-10)",
        "App.process -> walk @ calls/pkg/app.py:10 (calls/pkg/app.py:12-13)",
        "walk -> walk @ calls/pkg/app.py:13 (calls/pkg/app.py:12-13) cycle",
        "App.run -> save @ calls/pkg/app.py:7 (calls/pkg/util.py:4-5)",
      ]);
      const shallow = await host.call("derive_code_path", {
        name: "calls/pkg/app.py:main",
        max_depth: 1,
        path: "calls",
      });
      assertEquals((shallow.structuredContent as { edges: unknown[] }).edges.length, 1);
      assertMatch(
        textOf(await host.call("derive_code_path", { name: "main", path: "calls" })),
        /^ambiguous_match: .*calls\/other\.ts/,
      );
      assertMatch(
        textOf(await host.call("derive_code_path", { name: "nope", path: "calls" })),
        /^not_found: /,
      );
      await Deno.writeTextFile(
        `${dir}/shapes.ts`,
        "class Shape {\n  constructor() {\n    init();\n  }\n}\nconst init = () => {};\nexport function build() {\n  return new Shape();\n}\n",
      );
      const built = await host.call("derive_code_path", { name: "build", path: "calls" });
      assertEquals(
        (built.structuredContent as {
          edges: Array<{ from: string; to: string; call_site: string }>;
        })
          .edges.map((e) => `${e.from} -> ${e.to} @ ${e.call_site}`),
        [
          "build -> Shape.constructor @ calls/shapes.ts:8",
          "Shape.constructor -> init @ calls/shapes.ts:3",
        ],
        "`new Shape()` reaches its constructor; a const arrow function is a definition",
      );
      const ts = await host.call("derive_code_path", {
        name: "calls/other.ts:main",
        path: "calls",
      });
      assertEquals(
        (ts.structuredContent as { edges: Array<{ to: string }> }).edges.map((e) => e.to),
        ["helper"],
      );
    },
  );

  await t.step(
    "derive_code_path on real Python, TypeScript and C: every edge points at a real call and a real definition",
    async (t) => {
      const dir = `${root.path}/real`;
      const stdlib = await pythonStdlib();
      await copyTree(`${stdlib}/json`, `${dir}/json`, (name) => name.endsWith(".py"));
      await copyTree(`${REPO}tools`, `${dir}/ts/tools`, (name) => name.endsWith(".ts"));
      await copyTree(
        `${REPO}tools/files`,
        `${dir}/ts/tools/files`,
        (name) => name.endsWith(".ts"),
      );
      await copyTree(`${REPO}security`, `${dir}/ts/security`, (name) => name.endsWith(".ts"));
      const scanner = npmFile("tree-sitter-python/src/scanner.c")!;
      await Deno.mkdir(`${dir}/c`);
      await Deno.copyFile(scanner, `${dir}/c/scanner.c`);

      /** The line `file:line` names (`file` from the root), from the copies. */
      const lineAt = (where: string) => {
        const [file, line] = where.split(":");
        return Deno.readTextFileSync(`${root.path}/${file}`).split(
          "\n",
        )[Number(line!.split("-")[0]) - 1]!;
      };
      const trace = async (target: string, max_depth = 3) => {
        const result = await host.call("derive_code_path", {
          name: target,
          max_depth,
          path: "real",
        });
        assertFalse(result.isError, textOf(result));
        const edges = (result.structuredContent as { edges: CallEdge[] }).edges;
        for (const edge of edges) {
          const callee = edge.to.split(".").at(-1)!;
          const name = callee === "__init__" || callee === "constructor"
            ? edge.to.split(".").at(-2)!
            : callee;
          assertMatch(
            lineAt(edge.call_site),
            new RegExp(`\\b${name}\\b`),
            `call site of ${JSON.stringify(edge)}`,
          );
          assertStringIncludes(
            Deno.readTextFileSync(`${root.path}/${edge.defined_at.split(":")[0]}`).split("\n")
              .slice(Number(edge.defined_at.split(":")[1]!.split("-")[0]) - 1).slice(0, 4).join(
                "\n",
              ),
            callee,
            `definition of ${JSON.stringify(edge)}`,
          );
          assert(edge.depth >= 1 && edge.depth <= max_depth);
        }
        return { edges, text: textOf(result) };
      };

      await t.step("json.dumps reaches JSONEncoder.encode and iterencode", async () => {
        const { edges, text } = await trace("real/json/__init__.py:dumps");
        const pairs = edges.map((e) => `${e.from} -> ${e.to}`);
        assert(pairs.includes("dumps -> JSONEncoder.encode"), pairs.join("; "));
        assert(pairs.includes("JSONEncoder.encode -> JSONEncoder.iterencode"), pairs.join("; "));
        assertStringIncludes(text, "heuristic");
      });

      await t.step("Registry.call in this repository's TypeScript", async () => {
        const { edges } = await trace("Registry.call", 2);
        assert(edges.length >= 3, `${edges.length} edges`);
        assert(
          edges.every((e) => e.call_site.startsWith("real/ts/tools/registry.ts:") || e.depth > 1),
        );
      });

      await t.step("the tree-sitter Python scanner's entry point in C", async () => {
        const { edges } = await trace("tree_sitter_python_external_scanner_scan", 2);
        const callees = new Set(edges.map((e) => e.to));
        assert(callees.has("advance") || callees.has("skip"), [...callees].join(", "));
      });
    },
  );

  await t.step(
    "derive_code_path is bounded, reports progress on long scans, and honours cancellation",
    async (t) => {
      const base = `${root.path}/bounded`;
      // 600 modules: hub() calls 400 functions; chain_i calls chain_{i+1}.
      const hub = ["def hub():", ...Array.from({ length: 400 }, (_, i) => `    leaf_${i}()`), ""]
        .join("\n");
      await Deno.mkdir(base);
      await Deno.writeTextFile(`${base}/hub.py`, hub);
      for (let i = 0; i < 600; i++) {
        const dir = `${base}/pkg${i % 10}`;
        await Deno.mkdir(dir, { recursive: true });
        await Deno.writeTextFile(
          `${dir}/m${i}.py`,
          `def leaf_${i}():\n    return ${i}\n\n\ndef chain_${i}():\n    return chain_${i + 1}()\n`,
        );
      }

      await t.step("a fan-out past the edge limit is cut with a note", async () => {
        const progress: number[] = [];
        const result = await host.call("derive_code_path", { name: "hub", path: "bounded" }, {
          onProgress: (done) => progress.push(done),
        });
        const data = result.structuredContent as {
          edges: CallEdge[];
          truncated: boolean;
          files_scanned: number;
        };
        assertEquals(data.files_scanned, 601);
        assert(data.truncated);
        assertEquals(data.edges.length, 300);
        assertMatch(textOf(result), /\[cut at 300 edges: lower max_depth or narrow path\]$/);
        assert(progress.length >= 3, `progress reports: ${progress.length}`);
      });

      await t.step("depth is bounded", async () => {
        const result = await host.call("derive_code_path", {
          name: "chain_0",
          max_depth: 4,
          path: "bounded",
        });
        const edges = (result.structuredContent as { edges: CallEdge[] }).edges;
        assertEquals(edges.map((e) => e.to), ["chain_1", "chain_2", "chain_3", "chain_4"]);
        assertEquals(edges.map((e) => e.depth), [1, 2, 3, 4]);
      });

      await t.step("a scan cancelled midway stops", async () => {
        // Cancelled at the first progress report, a sixth of the way: the worker sees the message
        // waiting and yields for it at once, not at its next scheduled turn (the rest of the scan
        // can take less than that on a fast machine).
        const controller = new AbortController();
        const result = await host.call("derive_code_path", { name: "hub", path: "bounded" }, {
          signal: controller.signal,
          onProgress: () => controller.abort(),
        });
        assertMatch(textOf(result), /^cancelled: /);
      });
    },
  );
});
