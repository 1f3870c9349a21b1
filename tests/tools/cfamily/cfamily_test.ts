/**
 * The C and C++ tools on real code: function definitions agree with
 * Universal Ctags on the C sources shipped in npm packages and on headers
 * in /usr/include; C++ names, out-of-line definitions; byte-exact round trips.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

const NODE_MODULES = new URL("../../../node_modules/.deno/", import.meta.url).pathname;
const FIXTURE = new URL("../../../fixtures/cfamily/geometry.cpp", import.meta.url).pathname;

interface Outline {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: Outline[];
}

function walkFiles(dir: string, test: (name: string) => boolean, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) walkFiles(path, test, out);
    else if (entry.isFile && test(entry.name) && Deno.statSync(path).size < 300_000) out.push(path);
  }
  return out;
}

async function ctagsFunctions(file: string): Promise<string[]> {
  const output = await new Deno.Command("ctags", {
    args: ["--output-format=json", "--fields=+ne", "--kinds-c=f", "-o", "-", file],
  }).output();
  assert(output.success, "ctags runs (Debian package universal-ctags)");
  return new TextDecoder().decode(output.stdout).split("\n").filter(Boolean).map((line) =>
    JSON.parse(line)
  )
    .filter((tag) => tag.kind === "function").map((tag) => `${tag.name}@${tag.end}`).sort();
}

function definitions(symbols: Outline[]): Outline[] {
  return symbols.flatMap((
    s,
  ) => [...(s.kind === "function" || s.kind === "method" ? [s] : []), ...definitions(s.children)]);
}

Deno.test("C function definitions agree with Universal Ctags on real sources", async (t) => {
  await using root = await tempDir();
  const npm = walkFiles(NODE_MODULES, (name) => name.endsWith(".c") || name.endsWith(".h"))
    .filter((path) => path.includes("/tree-sitter-"));
  const headers: string[] = [];
  for (const dir of ["/usr/include", "/usr/include/x86_64-linux-gnu/bits"]) {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".h")) continue;
      const text = Deno.readTextFileSync(`${dir}/${entry.name}`);
      if (/static (__)?inline|__extern_inline/.test(text)) headers.push(`${dir}/${entry.name}`);
    }
  }
  assert(npm.length >= 10, `C sources found in npm packages: ${npm.length}`);
  const copies = new Map<string, string>();
  for (const [i, file] of [...npm, ...headers].entries()) {
    const name = `f${i}.${file.endsWith(".c") ? "c" : "h"}`;
    await Deno.copyFile(file, `${root.path}/${name}`);
    copies.set(file, name);
  }
  await using host = await testHost({ roots: [root.path] });
  const agree = async (file: string) => {
    const result = await host.call("ts_c_get_code_outline", { path: copies.get(file)! });
    assertFalse(result.isError, textOf(result));
    const ours = definitions((result.structuredContent as { symbols: Outline[] }).symbols)
      .map((s) => `${s.name}@${s.end_line}`).sort();
    return { ours, theirs: await ctagsFunctions(file) };
  };

  await t.step(`every one of the npm-shipped C sources agrees (${npm.length} files)`, async () => {
    let functions = 0;
    for (const file of npm) {
      const { ours, theirs } = await agree(file);
      assertEquals(ours, theirs, file);
      functions += theirs.length;
    }
    assert(functions >= 50, `functions compared: ${functions}`);
  });

  await t.step(
    `most /usr/include headers with inline definitions agree; the rest are glibc macros (${headers.length} files)`,
    async () => {
      let agreeing = 0;
      for (const file of headers) {
        const { ours, theirs } = await agree(file);
        if (JSON.stringify(ours) === JSON.stringify(theirs)) agreeing++;
      }
      assert(
        headers.length === 0 || agreeing / headers.length >= 0.5,
        `${agreeing}/${headers.length} headers agree`,
      );
    },
  );
});

Deno.test("C++: outline kinds, Class::method, namespaces and out-of-line definitions", async (t) => {
  await using root = await tempDir();
  await Deno.copyFile(FIXTURE, `${root.path}/geometry.cpp`);
  await using host = await testHost({ roots: [root.path] });

  await t.step(
    "the outline nests namespaces and classes and tells prototypes from definitions",
    async () => {
      const result = await host.call("ts_cpp_get_code_outline", { path: "geometry.cpp" });
      const text = textOf(result);
      assertStringIncludes(text, "[Namespace] geo (Lines 6-55)");
      assertStringIncludes(text, "  [Class] Circle (Lines 20-29)");
      assertStringIncludes(text, "    [Prototype] area (Lines 24-24)");
      assertStringIncludes(text, "  [Method] Circle::area (Lines 46-48)");
      assertStringIncludes(text, "  [Function] clamp (Lines 31-34)");
      assertStringIncludes(text, "[Prototype] count_shapes (Lines 57-57)");
      assertStringIncludes(text, "[Function] count_shapes (Lines 59-61)");
      const symbols = (result.structuredContent as { symbols: Outline[] }).symbols;
      assertEquals(symbols.map((s) => s.kind), ["namespace", "prototype", "function"]);
    },
  );

  await t.step("definitions by qualified, partial and out-of-line names", async () => {
    const area = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "Circle::area",
    });
    assertEquals(
      (area.structuredContent as { source: string }).source,
      "double Circle::area() const {\n  return 3.141592653589793 * detail::square(r_);\n}\n",
    );
    const square = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "geo::detail::square",
    });
    assertEquals((square.structuredContent as { start_line: number }).start_line, 37);
    const clamp = await host.call("ts_cpp_get_definition", { path: "geometry.cpp", name: "clamp" });
    assertMatch(
      (clamp.structuredContent as { source: string }).source,
      /^template <typename T>\nT clamp/,
    );
    const op = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "Circle::operator*=",
    });
    assertStringIncludes(textOf(op), "r_ *= k;");
    const count = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "count_shapes",
    });
    assertEquals(
      (count.structuredContent as { kind: string }).kind,
      "function",
      "the definition wins over the prototype",
    );
    assertMatch(
      textOf(await host.call("ts_cpp_get_definition", { path: "geometry.cpp", name: "nope" })),
      /^not_found: /,
    );
    const ambiguous = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "~Circle",
    });
    assertMatch(textOf(ambiguous), /^(ambiguous_match|not_found): |^geometry/);
  });

  await t.step("signatures and the skeleton", async () => {
    const sig = await host.call("ts_cpp_get_signature", {
      path: "geometry.cpp",
      name: "Circle::area",
    });
    assertEquals(textOf(sig), "geometry.cpp:46 double Circle::area() const");
    const skeleton = textOf(await host.call("ts_cpp_get_skeleton", { path: "geometry.cpp" }));
    assertStringIncludes(skeleton, "double Circle::area() const { ... }");
    assertStringIncludes(skeleton, "class Circle : public Shape {");
    assertFalse(skeleton.includes("3.141592653589793"));
  });
});

Deno.test("C/C++ updates: a definition's own text leaves the file byte-identical; edits keep CRLF; syntax errors refused", async () => {
  await using root = await tempDir();
  const scanner = walkFiles(NODE_MODULES, (name) => name === "scanner.c").find((path) =>
    path.includes("tree-sitter-python")
  )!;
  await Deno.copyFile(scanner, `${root.path}/scanner.c`);
  const crlf = Deno.readTextFileSync(FIXTURE).replaceAll("\n", "\r\n");
  await Deno.writeTextFile(`${root.path}/geo.cpp`, crlf);
  await using host = await testHost({ roots: [root.path] });
  for (const [path, lang] of [["scanner.c", "c"], ["geo.cpp", "cpp"]] as const) {
    const before = await Deno.readFile(`${root.path}/${path}`);
    const outline = await host.call(`ts_${lang}_get_code_outline`, { path });
    const names = definitions((outline.structuredContent as { symbols: Outline[] }).symbols).map((
      s,
    ) => s.name);
    assert(names.length >= 5, `${path}: ${names.length} definitions`);
    for (
      const name of names.filter((each, i) => names.indexOf(each) === i && !each.includes("~"))
        .slice(0, 12)
    ) {
      const got = await host.call(`ts_${lang}_get_definition`, { path, name });
      if (got.isError) continue; // an overloaded name: covered by the qualified lookups above
      const source = (got.structuredContent as { source: string }).source;
      const updated = await host.call(`ts_${lang}_update_definition`, {
        path,
        name,
        new_content: source,
      });
      assertFalse(updated.isError, textOf(updated));
    }
    assertEquals(
      await Deno.readFile(`${root.path}/${path}`),
      before,
      `${path} unchanged byte for byte`,
    );
  }
  await host.call("read_file", { path: "geo.cpp" });
  const edited = await host.call("ts_cpp_update_definition", {
    path: "geo.cpp",
    name: "Circle::area",
    new_content: "double Circle::area() const {\n  return 3.14159 * r_ * r_;\n}\n",
  });
  assertFalse(edited.isError, textOf(edited));
  const text = await Deno.readTextFile(`${root.path}/geo.cpp`);
  assertStringIncludes(
    text,
    "double Circle::area() const {\r\n  return 3.14159 * r_ * r_;\r\n}\r\n",
  );
  assertFalse(/[^\r]\n/.test(text), "still CRLF throughout");
  const broken = await host.call("ts_cpp_update_definition", {
    path: "geo.cpp",
    name: "Circle::area",
    new_content: "double Circle::area() const {\n  return (3.14;\n",
  });
  assertMatch(textOf(broken), /^syntax_error: /);
  assertEquals(await Deno.readTextFile(`${root.path}/geo.cpp`), text);
});
