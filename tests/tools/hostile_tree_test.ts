/**
 * Whole-tree tools over a hostile tree, in the launch users run: binary,
 * oversized, deeply nested and unparseable files, a FIFO, a symlink loop, a
 * directory nested 70 deep and one whose name is not UTF-8, beside ordinary
 * files. Every tool answers for the good files and counts what it skipped.
 */

import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../_mcp.ts";

/** Brackets around a call: deeper than any recursive walk of the tree survives. */
const NEST = 5_000;
/** Directories below `hostile/deepdir`: past the walker's limit of 64. */
const DEEP_DIRS = 70;
/** Nested classes: past the symbol collectors' limit of 256. */
const DEEP_CLASSES = 300;

interface SkippedField {
  count: number;
  first?: { path: string; reason: string };
}

/** Each hostile directory: what it holds besides its good `ok.py`, and why that is skipped. */
const HOSTILE: Record<string, { path: string; reason: RegExp }> = {
  binary: { path: "hostile/binary/blob.py", reason: /^binary file \(ELF executable\)$/ },
  huge: { path: "hostile/huge/big.py", reason: /^over the 1\.0 MB size limit$/ },
  fifo: {
    path: "hostile/fifo/pipe.py",
    reason: /^not a regular file \(a FIFO, socket or device\)$/,
  },
  loop: { path: "hostile/loop/a.py", reason: /^symlink \(never followed\)$/ },
  deepdir: {
    path: `hostile/deepdir/${Array.from({ length: 64 }, () => "d").join("/")}`,
    reason: /^nested more than 64 directories deep \(not walked\)$/,
  },
  badname: { path: "hostile/badname/x\uFFFD", reason: /^name is not valid UTF-8$/ },
};

async function write(path: string, data: string | Uint8Array): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  if (typeof data === "string") await Deno.writeTextFile(path, data);
  else await Deno.writeFile(path, data);
}

async function run(command: string, args: string[]): Promise<void> {
  const { success } = await new Deno.Command(command, { args, stderr: "inherit" }).output();
  if (!success) throw new Error(`${command} ${args.join(" ")} failed`);
}

/** A good module per directory: a class hierarchy and a call, named after the directory. */
function okModule(kind: string): string {
  return [
    `class Base_${kind}:`,
    "    pass",
    "",
    "",
    `class Sub_${kind}(Base_${kind}):`,
    "    def run(self):",
    `        return helper_${kind}()`,
    "",
    "",
    `def helper_${kind}():`,
    "    return 1",
    "",
  ].join("\n");
}

async function hostileTree(root: string): Promise<void> {
  await write(`${root}/toolhost.json`, JSON.stringify({ limits: { maxSearchFileBytes: 1 << 20 } }));
  await write(`${root}/good/app.py`, okModule("app"));
  await write(`${root}/good/lib.c`, "int helper_c(void) { return 1; }\n");
  await write(`${root}/good/web.ts`, "export function helperTs(): number {\n  return 1;\n}\n");
  const open = (s: string) => s.repeat(NEST);
  await write(
    `${root}/nested/deep.py`,
    "from good.app import helper_app\n\n\n" +
      `def deep_py():\n    return ${open("(")}helper_app()${open(")")}\n`,
  );
  await write(
    `${root}/nested/deep.c`,
    `int deep_c(void) { return ${open("(")}helper_c()${open(")")}; }\n`,
  );
  await write(
    `${root}/nested/deep.ts`,
    `export function deepTs() {\n  return ${open("[")}helperTs()${open("]")};\n}\n`,
  );
  await write(`${root}/nested/garbage.py`, "def (:\n  ))) class [ ::\n".repeat(200));
  await write(
    `${root}/nested/latin1.py`,
    new Uint8Array([...new TextEncoder().encode("def latin():\n    return '"), 0xff, 0x27, 0x0a]),
  );
  for (const kind of [...Object.keys(HOSTILE), "toodeep"]) {
    await write(`${root}/hostile/${kind}/ok.py`, okModule(kind));
  }
  await write(`${root}/hostile/binary/blob.py`, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
  await write(`${root}/hostile/huge/big.py`, "x = 1\n".repeat(200_000));
  await run("mkfifo", [`${root}/hostile/fifo/pipe.py`]);
  await Deno.symlink("b.py", `${root}/hostile/loop/a.py`);
  await Deno.symlink("a.py", `${root}/hostile/loop/b.py`);
  const deep = `${root}/hostile/deepdir/${Array.from({ length: DEEP_DIRS }, () => "d").join("/")}`;
  await write(`${deep}/lost.py`, okModule("lost"));
  // A directory whose name is the byte 0xFF: Deno lists it as U+FFFD and cannot open that name.
  await run("sh", [
    "-c",
    'd="$1/x$(printf "\\377")" && mkdir "$d" && echo "def inner(): pass" > "$d/inner.py"',
    "sh",
    `${root}/hostile/badname`,
  ]);
  const namespaces = (body: string) =>
    "namespace n { ".repeat(DEEP_CLASSES) + body + " }".repeat(DEEP_CLASSES) + "\n";
  await write(
    `${root}/hostile/toodeep/ns.cpp`,
    namespaces("int leaf_cpp() { return 1; } int inner_cpp() { return leaf_cpp(); }"),
  );
  await write(`${root}/hostile/toodeep/ns.ts`, namespaces("export function innerTs() {}"));
  await write(
    `${root}/hostile/toodeep/classes.py`,
    Array.from({ length: DEEP_CLASSES }, (_, i) => `${" ".repeat(i)}class C${i}:\n`).join("") +
      `${" ".repeat(DEEP_CLASSES)}pass\n`,
  );
}

async function call(
  session: StdioSession,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; data: Record<string, unknown>; skipped: SkippedField }> {
  const result = await session.call(name, args);
  const text = resultText(result);
  assert(!result.isError, `${name} ${JSON.stringify(args)} failed: ${text}`);
  const data = (result.structuredContent ?? {}) as Record<string, unknown>;
  return { text, data, skipped: data.skipped as SkippedField };
}

/** The text's last line says what the structured field says. */
function assertNote(text: string, skipped: SkippedField): void {
  const note =
    `skipped: ${skipped.count} (first: ${skipped.first?.path}: ${skipped.first?.reason})`;
  if (skipped.count === 0) assertEquals(/^skipped: /m.test(text), false, text);
  else assertEquals(text.split("\n").at(-1), note);
}

Deno.test("whole-tree tools answer for the good files of a hostile tree and count what they skip", async (t) => {
  await using root = await tempDir();
  await hostileTree(root.path);
  await using session = await connectStdio([root.path]);

  await t.step("derive_code_path follows calls out of deeply nested files", async () => {
    const calls = { deep_py: "helper_app", deep_c: "helper_c", deepTs: "helperTs" };
    for (const [target, to] of Object.entries(calls)) {
      const { text, data, skipped } = await call(session, "derive_code_path", { name: target });
      const edges = data.edges as Array<{ to: string }>;
      assertEquals(edges.map((edge) => edge.to), [to], text);
      // The FIFO, both links, the deep and the badly named directory, the binary and the big file.
      assertEquals(skipped.count, 7, text);
      assertNote(text, skipped);
    }
  });

  await t.step("the Python tools answer for every good file", async () => {
    const outline = await call(session, "py_get_code_outline", { path: "." });
    const files = outline.data.files as Array<{ path: string; symbols: Array<{ name: string }> }>;
    const names = Object.fromEntries(files.map((f) => [f.path, f.symbols.map((s) => s.name)]));
    assertEquals(names["good/app.py"], ["Base_app", "Sub_app", "helper_app"]);
    assertEquals(names["nested/deep.py"], ["deep_py"]);
    assertEquals(names["nested/latin1.py"], ["latin"]);
    assert(names["nested/garbage.py"] !== undefined, "a file that does not parse is outlined");
    assertEquals(names["hostile/toodeep/classes.py"], undefined);
    assertEquals(outline.skipped.count, 8, outline.text); // the seven above and classes.py
    assertNote(outline.text, outline.skipped);

    const usages = await call(session, "find_usages", {
      path: "good/app.py",
      name: "helper_app",
      scope: ".",
    });
    const where = (usages.data.sites as Array<{ path: string; line: number }>)
      .map((use) => `${use.path}:${use.line}`);
    assertEquals(where, [
      "good/app.py:10",
      "good/app.py:7",
      "nested/deep.py:1",
      "nested/deep.py:5",
    ]);
    assertEquals(usages.skipped.count, 7, usages.text);
    assertNote(usages.text, usages.skipped);

    const hierarchy = await call(session, "py_get_hierarchy", { name: "Base_app" });
    const subclasses = hierarchy.data.subclasses as Array<{ name: string }>;
    assertEquals(subclasses.map((s) => s.name), ["Sub_app"]);
    assertEquals(hierarchy.skipped.count, 7, hierarchy.text);
    assertNote(hierarchy.text, hierarchy.skipped);
  });

  await t.step(
    "each hostile file is skipped with its reason; the good file beside it is read",
    async () => {
      for (const [kind, expected] of Object.entries(HOSTILE)) {
        const path = `hostile/${kind}`;
        const results = [
          await call(session, "derive_code_path", { name: `Sub_${kind}.run`, path }),
          await call(session, "py_get_code_outline", { path }),
          await call(session, "find_usages", {
            path: `${path}/ok.py`,
            name: `helper_${kind}`,
            scope: path,
          }),
          await call(session, "py_get_hierarchy", { name: `Base_${kind}`, path }),
        ];
        const [derived, outline, usages, hierarchy] = results.map((r) => r.data);
        assertEquals((derived!.edges as Array<{ to: string }>)[0]?.to, `helper_${kind}`, kind);
        assertEquals((outline!.files as Array<{ path: string }>).map((f) => f.path), [
          `${path}/ok.py`,
        ]);
        assertEquals((usages!.sites as unknown[]).length, 2, kind);
        assertEquals((hierarchy!.subclasses as Array<{ name: string }>)[0]?.name, `Sub_${kind}`);
        for (const { text, skipped } of results) {
          assertEquals(skipped.first?.path, expected.path, text);
          assertMatch(skipped.first?.reason ?? "", expected.reason, text);
          assertNote(text, skipped);
        }
      }
    },
  );

  await t.step("code nested past the symbol collectors' limit", async () => {
    const path = "hostile/toodeep";
    const outline = await call(session, "py_get_code_outline", { path });
    assertEquals(outline.skipped.first?.path, `${path}/classes.py`);
    assertMatch(
      outline.skipped.first?.reason ?? "",
      /^cannot read past line \d+: the code nests more than 256 levels deep$/,
    );
    // Tools that collect no symbols read the same files.
    const calls = { "Sub_toodeep.run": "helper_toodeep", inner_cpp: "leaf_cpp" };
    for (const [target, to] of Object.entries(calls)) {
      const derived = await call(session, "derive_code_path", { name: target, path });
      const edges = derived.data.edges as Array<{ to: string }>;
      assertEquals(edges.map((edge) => edge.to.split(".").at(-1)), [to]); // `n.n.….leaf_cpp`
      assertEquals(derived.skipped, { count: 0 }, derived.text);
    }
    const nested = Array.from({ length: DEEP_CLASSES }, (_, i) => `C${i}`).join(".");
    const usages = await call(session, "find_usages", {
      path: `${path}/classes.py`,
      name: nested,
      scope: path,
    });
    assertEquals((usages.data.sites as Array<{ path: string }>)[0]?.path, `${path}/classes.py`);
    assertEquals(usages.skipped, { count: 0 });
    const syntax = await call(session, "py_check_syntax", { path: `${path}/classes.py` });
    assertEquals(syntax.data.valid, true, syntax.text);
    // One file asked for: an error the model can act on, not an internal one.
    const single = [
      ["ts_cpp_get_code_outline", "ns.cpp"],
      ["get_file_summary", "ns.cpp"],
      ["ts_js_get_code_outline", "ns.ts"],
      ["py_get_code_outline", "classes.py"],
    ];
    for (const [tool, file] of single) {
      const result = await session.call(tool!, { path: `${path}/${file}` });
      assertEquals(result.isError, true, tool);
      assertMatch(
        resultText(result),
        /^unsupported: Cannot read past line \d+: the code nests more than 256 levels deep$/,
      );
    }
  });

  await t.step("the listing tools list what they can and count the rest", async () => {
    // ripgrep lists, the walker walks: the same files, the same directories skipped.
    await using walker = await connectStdio([root.path], { ripgrep: "off" });
    const found = await call(session, "search_files", { pattern: "*.py" });
    const walked = await call(walker, "search_files", { pattern: "*.py" });
    assertEquals([found.data.engine, walked.data.engine], ["ripgrep", "walker"]);
    for (const { data, text, skipped } of [found, walked]) {
      const files = data.files as string[];
      assert(files.includes("good/app.py") && files.includes("hostile/deepdir/ok.py"), text);
      assert(files.includes("hostile/fifo/ok.py") && !files.includes("hostile/fifo/pipe.py"));
      assert(!files.some((f) => f.endsWith("lost.py") || f.includes("\uFFFD")), text);
      assertEquals(skipped.count, 2, text); // the deep and the badly named directory
      assertNote(text, skipped);
    }
    assertEquals(found.data.files, walked.data.files);

    const tree = await session.call("get_tree", { path: "hostile", max_depth: 3 });
    const text = resultText(tree);
    assertMatch(text, /^ {4}ok\.py$/m);
    assertEquals(
      text.split("\n").at(-1),
      "skipped: 1 (first: hostile/badname/x\uFFFD: name is not valid UTF-8)",
    );

    const fifo = resultText(await session.call("list_directory", { path: "hostile/fifo" }));
    assertMatch(fifo, /^\[other\] pipe\.py$/m);
    assertMatch(fifo, /^\[file\] ok\.py/m);
    const loop = resultText(await session.call("list_directory", { path: "hostile/loop" }));
    assertMatch(loop, /^\[link\] a\.py$/m);
  });
});
