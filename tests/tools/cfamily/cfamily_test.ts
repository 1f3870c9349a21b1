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
import { canRun, npmFile, quickRun, tempDir, testHost, textOf } from "../../_helpers.ts";

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

/** A function definition as Universal Ctags sees it: name, the line of the name, last line. */
interface Tag {
  name: string;
  line: number;
  end: number;
}

/**
 * `ctags --output-format=json --fields=+ne --kinds-C=f` (or C++), the Debian package
 * universal-ctags, run once over all the files (a start of ctags costs more than reading a
 * file): each file's function definitions, by the path given. Each tag names its file, and
 * ctags reads each file as it would alone.
 */
async function ctagsFunctions(
  files: readonly string[],
  lang: "C" | "C++",
): Promise<Map<string, Tag[]>> {
  const output = await new Deno.Command("ctags", {
    args: [
      "--output-format=json",
      "--fields=+ne",
      `--language-force=${lang}`,
      `--kinds-${lang}=f`,
      "-o",
      "-",
      ...files,
    ],
  }).output();
  assert(output.success, "ctags runs (Debian package universal-ctags)");
  const byFile = new Map<string, Tag[]>(files.map((file) => [file, []]));
  for (const line of new TextDecoder().decode(output.stdout).split("\n").filter(Boolean)) {
    const tag = JSON.parse(line);
    if (tag.kind !== "function" || tag.name.startsWith("__anon")) continue; // lambdas
    const tags = byFile.get(tag.path);
    assert(tags, `ctags named a file it was not given: ${tag.path}`);
    tags.push({ name: wrappedName(tag), line: tag.line, end: tag.end });
  }
  return byFile;
}

/**
 * A tag's name, where ctags names a definition after the macro it cannot
 * expand: for `inline int UNDEF(addch)(chtype ch) {…}` (ncurses) it says
 * `UNDEF`; the name written is `addch`, which is what we list.
 */
function wrappedName(tag: { name: string; pattern?: string }): string {
  if (!/^[A-Z_][A-Z0-9_]+$/.test(tag.name)) return tag.name;
  const wrapped = new RegExp(`\\b${tag.name}\\s*\\(\\s*(\\w+)\\s*\\)\\s*\\(`).exec(
    tag.pattern ?? "",
  );
  return wrapped?.[1] ?? tag.name;
}

function definitions(symbols: Outline[]): Outline[] {
  return symbols.flatMap((
    s,
  ) => [...(s.kind === "function" || s.kind === "method" ? [s] : []), ...definitions(s.children)]);
}

/** `name@end` with the scope and spaces dropped (ctags says `operator !=` and `f`, we `A::operator!=`). */
function key(name: string, end: number): string {
  return `${name.split("::").at(-1)!.replace(/\s+/g, "")}@${end}`;
}

interface Agreement {
  ctags: number;
  matched: number;
  onlyOurs: string[];
  onlyTheirs: string[];
  /** Matched definitions whose range starts where ctags' name line is, or on the lines of the same declaration just above it. */
  startsAgree: number;
}

/** Compare our outline's function definitions with ctags': names, last lines, first lines. */
function compare(ours: Outline[], tags: Tag[], text: string): Agreement {
  const lines = text.split("\n");
  const byKey = new Map(ours.map((s) => [key(s.name, s.end_line), s]));
  const theirKeys = new Set(tags.map((tag) => key(tag.name, tag.end)));
  let matched = 0;
  let startsAgree = 0;
  for (const tag of tags) {
    const mine = byKey.get(key(tag.name, tag.end));
    if (!mine) continue;
    matched++;
    // `static int\nfoo(void)` and `template <…>\nT f()`: ctags gives the name's line, we the first.
    const between = lines.slice(mine.start_line - 1, tag.line - 1).join("\n");
    if (mine.start_line <= tag.line && !/[;{}]/.test(between)) startsAgree++;
  }
  const onlyOurs = [...byKey.keys()].filter((k) => !theirKeys.has(k));
  // What only we list must still be a definition in the text: its name and `(` near its first
  // line, a `}` on its last (in C headers: definitions in `#else` branches ctags skips).
  for (const k of onlyOurs) {
    const mine = byKey.get(k)!;
    const bare = mine.name.split("::").at(-1)!.replace(/^operator.*/, "operator");
    const head = lines.slice(mine.start_line - 1, mine.start_line + 3).join("\n");
    assert(head.includes(bare) && head.includes("("), `${k}: no definition at its first line`);
    assertStringIncludes(lines[mine.end_line - 1]!, "}", `${k}: no } on its last line`);
  }
  return {
    ctags: tags.length,
    matched,
    onlyOurs,
    onlyTheirs: tags.map((tag) => key(tag.name, tag.end)).filter((k) => !byKey.has(k)),
    startsAgree,
  };
}

Deno.test("C function definitions agree with Universal Ctags on real sources", {
  ignore: quickRun || !canRun("ctags"),
}, async (t) => {
  await using root = await tempDir();
  const npm = walkFiles(NODE_MODULES, (name) => name.endsWith(".c") || name.endsWith(".h"))
    .filter((path) => path.includes("/tree-sitter-"));
  // Every C header under /usr/include (glibc, Linux UAPI, Python, libuv, GMP, X11, …) that
  // defines inline functions; C++ headers are compared below.
  const headers = walkFiles("/usr/include", (name) => name.endsWith(".h"))
    .filter((path) => !path.startsWith("/usr/include/c++/"))
    .filter((path) => {
      const text = Deno.readTextFileSync(path);
      return /static (__)?inline|__extern_inline/.test(text) &&
        !/\b(class|namespace|template)\b/.test(text);
    });
  assert(npm.length >= 10, `C sources found in npm packages: ${npm.length}`);
  assert(
    headers.length >= 8,
    `C headers with inline definitions in /usr/include: ${headers.length}`,
  );
  const copies = new Map<string, string>();
  for (const [i, file] of [...npm, ...headers].entries()) {
    const name = `f${i}.${file.endsWith(".c") ? "c" : "h"}`;
    await Deno.copyFile(file, `${root.path}/${name}`);
    copies.set(file, name);
  }
  await using host = await testHost({ roots: [root.path] });
  const tags = await ctagsFunctions([...npm, ...headers], "C");
  const agree = async (file: string) => {
    const result = await host.call("ts_c_get_code_outline", { path: copies.get(file)! });
    assertFalse(result.isError, textOf(result));
    const ours = definitions((result.structuredContent as { symbols: Outline[] }).symbols);
    return compare(ours, tags.get(file)!, Deno.readTextFileSync(file));
  };

  await t.step(`every one of the npm-shipped C sources agrees (${npm.length} files)`, async () => {
    let functions = 0;
    for (const file of npm) {
      const found = await agree(file);
      assertEquals([found.onlyOurs, found.onlyTheirs], [[], []], file);
      assertEquals(found.startsAgree, found.ctags, `${file}: first lines`);
      functions += found.ctags;
    }
    assert(functions >= 100, `functions compared: ${functions}`);
  });

  await t.step(
    `/usr/include C headers with inline definitions agree (${headers.length} files)`,
    async () => {
      let total = 0;
      let matched = 0;
      let extra = 0;
      const misses: string[] = [];
      for (const file of headers) {
        const found = await agree(file);
        total += found.ctags;
        matched += found.matched;
        extra += found.onlyOurs.length;
        assertEquals(found.startsAgree, found.matched, `${file}: first lines`);
        if (found.onlyTheirs.length) misses.push(`${file}: ${found.onlyTheirs.join(" ")}`);
      }
      // Where ctags lists what we do not: functions generated by macros (`NILFS_SUINFO_FNS(…)`),
      // `int f() _X_ATTRIBUTE_PRINTF(…);`-style macros after parameters.
      assert(total >= 20 && matched / total >= 0.97, `${matched}/${total}; ${misses.join("; ")}`);
      assert(extra <= total * 0.1, `definitions ctags does not list: ${extra}`);
    },
  );
});

Deno.test(
  "C++ definitions agree with Universal Ctags on real C++ (node-addon-api, ncurses and GMP C++ headers)",
  { ignore: quickRun || !canRun("ctags") },
  async (t) => {
    await using root = await tempDir();
    const napi = npmFile("node-addon-api/napi-inl.h");
    assert(napi, "node-addon-api's napi-inl.h is in node_modules");
    const sources = [
      napi,
      ...["cursesw.h", "cursesf.h", "cursesm.h", "cursesp.h", "gmpxx.h"].map((name) =>
        `/usr/include/${name}`
      )
        .filter((path) => {
          try {
            return Deno.statSync(path).isFile;
          } catch {
            return false;
          }
        }),
    ];
    for (const [i, file] of sources.entries()) await Deno.copyFile(file, `${root.path}/f${i}.hpp`);
    await using host = await testHost({ roots: [root.path] });

    await t.step(`definitions, names and lines (${sources.length} files)`, async () => {
      const lines: string[] = [];
      let total = 0;
      let matched = 0;
      let extra = 0;
      const tags = await ctagsFunctions(sources, "C++");
      for (const [i, file] of sources.entries()) {
        const result = await host.call("ts_cpp_get_code_outline", { path: `f${i}.hpp` });
        assertFalse(result.isError, textOf(result));
        const ours = definitions((result.structuredContent as { symbols: Outline[] }).symbols);
        const found = compare(ours, tags.get(file)!, Deno.readTextFileSync(file));
        assertEquals(found.startsAgree, found.matched, `${file}: first lines`);
        total += found.ctags;
        matched += found.matched;
        extra += found.onlyOurs.length;
        lines.push(`${file}: ${found.matched}/${found.ctags}, ours only ${found.onlyOurs.length}`);
      }
      // The rest: definitions in #else branches (we follow the first branch), `f() THROWS(…)`.
      assert(total >= 700 && matched / total >= 0.98, lines.join("; "));
      assert(extra <= total * 0.015, lines.join("; "));
    });

    await t.step(
      "an unbalanced #ifdef namespace is a warning, and out-of-line methods are found",
      async () => {
        const outline = await host.call("ts_cpp_get_code_outline", { path: "f0.hpp" });
        const warnings = (outline.structuredContent as { warnings: string[] }).warnings;
        assertMatch(
          warnings[0]!,
          /^parsed with #if\/#ifdef directives and declaration macros blanked/,
        );
        const global = await host.call("ts_cpp_get_definition", {
          path: "f0.hpp",
          name: "Env::Global",
        });
        const got = global.structuredContent as {
          start_line: number;
          end_line: number;
          source: string;
        };
        assertEquals([got.start_line, got.end_line], [644, 649]);
        assertMatch(got.source, /^inline Object Env::Global\(\) const \{\n[^]*\n\}\n$/);
        const cast = await host.call("ts_cpp_get_definition", {
          path: "f0.hpp",
          name: "Value::operator napi_value",
        });
        assertMatch(
          (cast.structuredContent as { source: string }).source,
          /^inline Value::operator napi_value\(\) const \{/,
        );
        const op = await host.call("ts_cpp_get_definition", {
          path: "f0.hpp",
          name: "Object::const_iterator::operator!=",
        });
        assertEquals((op.structuredContent as { start_line: number }).start_line, 1937);
        const sig = await host.call("ts_cpp_get_signature", {
          path: "f0.hpp",
          name: "Env::Global",
        });
        assertEquals(textOf(sig), "f0.hpp:644 inline Object Env::Global() const");
        const many = await host.call("ts_cpp_get_definition", {
          path: "f0.hpp",
          name: "RunScript",
        });
        assertMatch(
          textOf(many),
          /^ambiguous_match: "RunScript" matches \d+ symbols[^]*Env::RunScript/,
        );
      },
    );

    await t.step(
      "updating 40 out-of-line methods with their own text changes no byte",
      async () => {
        const before = await Deno.readFile(`${root.path}/f0.hpp`);
        const outline = await host.call("ts_cpp_get_code_outline", { path: "f0.hpp" });
        const names = definitions((outline.structuredContent as { symbols: Outline[] }).symbols)
          .map((s) => s.name).filter((name, i, all) =>
            name.includes("::") && all.indexOf(name) === i
          );
        let updated = 0;
        for (const name of names.filter((_, i) => i % Math.ceil(names.length / 40) === 0)) {
          const got = await host.call("ts_cpp_get_definition", { path: "f0.hpp", name });
          if (got.isError) continue; // overloads share a name
          const result = await host.call("ts_cpp_update_definition", {
            path: "f0.hpp",
            name,
            content: (got.structuredContent as { source: string }).source,
          });
          assertFalse(result.isError, textOf(result));
          updated++;
        }
        assert(updated >= 20, `updated ${updated}`);
        assertEquals(await Deno.readFile(`${root.path}/f0.hpp`), before);
      },
    );
  },
);

Deno.test("C++: outline kinds, Class::method, namespaces and out-of-line definitions", async (t) => {
  await using root = await tempDir();
  await Deno.copyFile(FIXTURE, `${root.path}/geometry.cpp`);
  await using host = await testHost({ roots: [root.path] });

  await t.step(
    "the outline nests namespaces and classes and tells prototypes from definitions",
    async () => {
      const result = await host.call("ts_cpp_get_code_outline", { path: "geometry.cpp" });
      const text = textOf(result);
      assertStringIncludes(text, "[Namespace] geo (geometry.cpp:6-55)");
      assertStringIncludes(text, "  [Class] Circle : public Shape (geometry.cpp:20-29)");
      assertStringIncludes(text, "    [Field] r_ (geometry.cpp:28-28)");
      assertStringIncludes(
        text,
        "  [Struct] Point (geometry.cpp:8-11)\n    [Field] x (geometry.cpp:9-9)",
      );
      assertStringIncludes(text, "    [Prototype] area (geometry.cpp:24-24)");
      assertStringIncludes(text, "  [Method] Circle::area (geometry.cpp:46-48)");
      assertStringIncludes(text, "  [Function] clamp (geometry.cpp:31-34)");
      assertStringIncludes(text, "[Prototype] count_shapes (geometry.cpp:57-57)");
      assertStringIncludes(text, "[Function] count_shapes (geometry.cpp:59-61)");
      const symbols = (result.structuredContent as { symbols: Outline[] }).symbols;
      assertEquals(symbols.map((s) => s.kind), ["namespace", "prototype", "function"]);
      const circle = symbols[0]!.children.find((s) => s.name === "Circle") as
        & Outline
        & { bases?: string };
      assertEquals(circle.bases, "public Shape");
      // A data member is in the outline, not in the way of looking up a method.
      const r = await host.call("ts_cpp_get_definition", { path: "geometry.cpp", name: "r_" });
      assertMatch(textOf(r), /^not_found: /);
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
    const destructor = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "~Circle",
    });
    assertEquals(
      (destructor.structuredContent as { source: string }).source,
      "Circle::~Circle() {}\n",
      "the out-of-line definition wins over the in-class prototype",
    );
    const ambiguous = await host.call("ts_cpp_get_definition", {
      path: "geometry.cpp",
      name: "Circle",
    });
    assertMatch(
      textOf(ambiguous),
      /^ambiguous_match: "Circle" matches 3 symbols[^]*geo::Circle \(class, line 20\)[^]*geo::Circle::Circle \(method, line 42\)/,
    );
  });

  await t.step("signatures and the skeleton", async () => {
    const sig = await host.call("ts_cpp_get_signature", {
      path: "geometry.cpp",
      name: "Circle::area",
    });
    assertEquals(textOf(sig), "geometry.cpp:46 double Circle::area() const");
    const skeleton = textOf(await host.call("ts_cpp_get_skeleton", { path: "geometry.cpp" }));
    assertStringIncludes(
      skeleton,
      "double Circle::area() const { ... /* geometry.cpp:46-48 */ }",
    );
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
    let rewritten = 0;
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
        content: source,
      });
      assertFalse(updated.isError, textOf(updated));
      rewritten++;
    }
    assert(rewritten >= 5, `${path}: only ${rewritten} definitions rewritten`);
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
    content: "double Circle::area() const {\n  return 3.14159 * r_ * r_;\n}\n",
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
    content: "double Circle::area() const {\n  return (3.14;\n",
  });
  assertMatch(textOf(broken), /^syntax_error: /);
  assertEquals(await Deno.readTextFile(`${root.path}/geo.cpp`), text);
});

Deno.test("C conditionals: a branch that re-opens a body is read once, balanced branches both, #if 0 never", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(
    `${root.path}/cond.c`,
    [
      "#include <stddef.h>",
      "#ifdef USE_LONG",
      "long total(const long *v, size_t n) {",
      "#else",
      "int total(const int *v, size_t n) {",
      "#endif",
      "  size_t i;",
      "  int sum = 0;",
      "  for (i = 0; i < n; i++) sum += v[i];",
      "  return sum;",
      "}",
      "",
      "#if defined(_WIN32)",
      "static int sep(void) { return '\\\\'; }",
      "#else",
      "static int sep(void) { return '/'; }",
      "#endif",
      "",
      "#if 0",
      "int unused(void) { return 1; }",
      "#endif",
      "",
    ].join("\n"),
  );
  await using host = await testHost({ roots: [root.path] });
  const result = await host.call("ts_c_get_code_outline", { path: "cond.c" });
  const data = result.structuredContent as { symbols: Outline[]; warnings: string[] };
  assertEquals(
    data.symbols.map((s) => `${s.kind} ${s.name} ${s.start_line}-${s.end_line}`),
    ["function total 3-11", "function sep 14-14", "function sep 16-16"],
  );
  assertMatch(
    data.warnings[0]!,
    /^parsed with #if\/#ifdef directives and declaration macros blanked/,
  );
  const total = await host.call("ts_c_get_definition", { path: "cond.c", name: "total" });
  assertMatch((total.structuredContent as { source: string }).source, /^long total[^]*\n\}\n$/);
  const before = await Deno.readFile(`${root.path}/cond.c`);
  const same = await host.call("ts_c_update_definition", {
    path: "cond.c",
    name: "total",
    content: (total.structuredContent as { source: string }).source,
  });
  assertFalse(same.isError, textOf(same));
  assertEquals(await Deno.readFile(`${root.path}/cond.c`), before);
});

Deno.test("C kinds: struct, union, enum, typedef with its tag, prototype and definition; macro errors are warnings", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(
    `${root.path}/kinds.c`,
    [
      "#include <stddef.h>",
      "typedef struct point {",
      "  int x, y;",
      "} point_t;",
      "union number { int i; double d; };",
      "enum color { RED, GREEN };",
      "int add(int a, int b);",
      "int add(int a, int b) {",
      "  return a + b;",
      "}",
      "BROKEN_MACRO(",
      "int after(void) { return 0; }",
      "",
    ].join("\n"),
  );
  await using host = await testHost({ roots: [root.path] });
  const result = await host.call("ts_c_get_code_outline", { path: "kinds.c" });
  assertFalse(result.isError, textOf(result));
  const data = result.structuredContent as { symbols: Outline[]; warnings: string[] };
  const flat = (list: Outline[]): string[] =>
    list.flatMap((s) => [`${s.kind} ${s.name} ${s.start_line}-${s.end_line}`, ...flat(s.children)]);
  const seen = flat(data.symbols);
  for (
    const want of [
      "struct point 2-4",
      "typedef point_t 2-4",
      "field x 3-3",
      "field y 3-3",
      "field d 5-5",
      "union number 5-5",
      "enum color 6-6",
      "prototype add 7-7",
      "function add 8-10",
    ]
  ) assert(seen.includes(want), `${want} in ${seen.join(", ")}`);
  assert(data.warnings.length >= 1, "the stray macro is a warning");
  assertStringIncludes(textOf(result), "[Function] add (kinds.c:8-10)");
  // The tag and the typedef both find the whole typedef; `add` finds the definition.
  for (const name of ["point", "point_t"]) {
    const got = await host.call("ts_c_get_definition", { path: "kinds.c", name });
    assertEquals(
      (got.structuredContent as { source: string }).source,
      "typedef struct point {\n  int x, y;\n} point_t;\n",
    );
  }
  const add = await host.call("ts_c_get_definition", { path: "kinds.c", name: "add" });
  assertEquals((add.structuredContent as { start_line: number }).start_line, 8);
  assertMatch(
    textOf(await host.call("ts_c_get_definition", { path: "kinds.c", name: "pointy" })),
    /^not_found: [^]*point/,
  );
});
