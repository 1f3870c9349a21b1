import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

const SAMPLE = `"""Shapes."""
import math
from typing import Protocol as P


RATIO = 1.5
LIMITS = {
    "low": 0,
    "high": 10,
}


class Shape:
    """A shape."""

    sides: int = 0

    @property
    def area(self) -> float:
        return 0.0

    @area.setter
    def area(self, value):
        pass

    class Meta:
        def describe(self):
            """Say what it is."""
            return "meta"

    if math.pi > 3:
        def fast(self):
            def inner():
                return 1
            return inner()


try:
    import numpy
except ImportError:
    def fallback(x, *, scale=RATIO):
        # not "fallback" in a comment
        return "fallback" and x * scale
`;

/** Write SAMPLE as `<dir>/shapes.py`, a subdirectory of the root of its own. */
async function sample(root: string, dir: string): Promise<void> {
  await Deno.mkdir(`${root}/${dir}`);
  await Deno.writeTextFile(`${root}/${dir}/shapes.py`, SAMPLE);
}

Deno.test("py tools list with descriptions and annotations", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/m.py`, "x = 1\n");
  await using host = await testHost({
    roots: [root.path],
    config: { tools: { outputSchemas: true } },
  });
  const tools = new Map(host.list().map((t) => [t.name, t]));
  const readers = [
    "py_get_skeleton",
    "py_get_code_outline",
    "py_get_definition",
    "py_get_signature",
    "py_get_class_summary",
    "py_get_var_declaration",
    "py_get_imports",
    "py_check_syntax",
    "py_get_hierarchy",
    "py_get_docstring",
  ];
  const editors = [
    "py_update_definition",
    "py_set_signature",
    "py_set_var_declaration",
    "py_remove_def",
    "py_add_def",
    "py_move_def",
    "py_region_wrap",
  ];
  for (const name of readers) {
    const tool = tools.get(name);
    assert(tool, `${name} is listed`);
    assertEquals(tool.annotations?.readOnlyHint, true, name);
    assert(tool.description!.length > 80, name);
  }
  for (const name of editors) {
    const tool = tools.get(name);
    assert(tool, `${name} is listed`);
    assertEquals(tool.annotations?.destructiveHint, true, name);
    assert(tool.description!.length > 80, name);
  }
  assert(tools.get("py_get_code_outline")!.outputSchema, "outline has an outputSchema");
  assert(tools.get("py_check_syntax")!.outputSchema, "check_syntax has an outputSchema");
});

// The cases that need no config of their own share one host (a host costs its workers' start):
// each works in a subdirectory of the root of its own, on files of its own, and points every
// directory-wide call at that subdirectory.
Deno.test("py tools read and edit real files, each case in a directory of its own", async (t) => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });

  await t.step(
    "py_get_code_outline lists definitions under if/try, not inside function bodies",
    async () => {
      await sample(root.path, "outline");
      const result = await host.call("py_get_code_outline", { path: "outline/shapes.py" });
      assertEquals(
        textOf(result),
        [
          "[Class] Shape (outline/shapes.py:13-35)",
          "  [Method] area (outline/shapes.py:18-20)",
          "  [Method] area (outline/shapes.py:22-24)",
          "  [Class] Meta (outline/shapes.py:26-29)",
          "    [Method] describe (outline/shapes.py:27-29)",
          "  [Method] fast (outline/shapes.py:32-35)",
          "[Func] fallback (outline/shapes.py:41-43)",
        ].join("\n"),
      );
      const symbols = result.structuredContent!.symbols as Array<
        { name: string; path: string; start_line: number; end_line: number; children: unknown[] }
      >;
      assertEquals(symbols.map((s) => s.name), ["Shape", "fallback"]);
      assertEquals(symbols[0]!.children.length, 4);
      assertEquals(symbols[0]!.children[3], {
        kind: "method",
        name: "fast",
        path: "outline/shapes.py",
        start_line: 32,
        end_line: 35,
        children: [],
      });
    },
  );

  await t.step(
    "py_get_definition: dotted names, decorators, ambiguity and missing names",
    async (t) => {
      await sample(root.path, "definition");
      await t.step("Outer.Inner.method", async () => {
        const r = await host.call("py_get_definition", {
          path: "definition/shapes.py",
          name: "Shape.Meta.describe",
        });
        const source =
          '        def describe(self):\n            """Say what it is."""\n            return "meta"\n';
        assertEquals(textOf(r), `definition/shapes.py:27-29 Shape.Meta.describe\n${source}`);
        assertEquals(r.structuredContent, {
          path: "definition/shapes.py",
          name: "Shape.Meta.describe",
          kind: "method",
          start_line: 27,
          end_line: 29,
          source,
        });
      });
      await t.step("ambiguous: getter and setter, then picked with @LINE", async () => {
        const r = await host.call("py_get_definition", {
          path: "definition/shapes.py",
          name: "Shape.area",
        });
        assertEquals(r.isError, true);
        assertMatch(
          textOf(r),
          /^ambiguous_match: .*Shape\.area \(method, lines 18-20\).*Shape\.area \(method, lines 22-24\)/,
        );
        const picked = await host.call("py_get_definition", {
          path: "definition/shapes.py",
          name: "Shape.area@22",
        });
        assertEquals(
          textOf(picked),
          "definition/shapes.py:22-24 Shape.area\n    @area.setter\n    def area(self, value):\n        pass\n",
        );
      });
      await t.step("missing: lists similar names", async () => {
        const r = await host.call("py_get_definition", {
          path: "definition/shapes.py",
          name: "describe",
        });
        assertMatch(textOf(r), /^not_found: .*Shape\.Meta\.describe/);
        const none = await host.call("py_get_definition", {
          path: "definition/shapes.py",
          name: "nothing_like_it",
        });
        assertMatch(textOf(none), /^not_found: .*top-level names: Shape .*fallback/);
      });
    },
  );

  await t.step("py signatures, docstrings, class summaries and variables", async (t) => {
    await sample(root.path, "signatures");
    const shapes = `${root.path}/signatures/shapes.py`;
    await t.step("py_get_signature", async () => {
      const r = await host.call("py_get_signature", {
        path: "signatures/shapes.py",
        name: "fallback",
      });
      assertEquals(textOf(r), "signatures/shapes.py:41 def fallback(x, *, scale=RATIO):");
    });
    await t.step("py_set_signature keeps decorators and body", async () => {
      const r = await host.call("py_set_signature", {
        path: "signatures/shapes.py",
        name: "Shape.Meta.describe",
        content: "def describe(self, verbose: bool = False) -> str",
      });
      assertEquals(r.isError, undefined, textOf(r));
      const text = await Deno.readTextFile(shapes);
      assertStringIncludes(
        text,
        '        def describe(self, verbose: bool = False) -> str:\n            """Say what it is."""\n',
      );
      const bad = await host.call("py_set_signature", {
        path: "signatures/shapes.py",
        name: "fallback",
        content: "def fallback(x,:",
      });
      assertMatch(textOf(bad), /^syntax_error: /);
      assertEquals(await Deno.readTextFile(shapes), text, "nothing written");
    });
    await t.step("py_get_docstring for module, class and method", async () => {
      assertEquals(
        textOf(await host.call("py_get_docstring", { path: "signatures/shapes.py", name: "" })),
        "Shapes.",
      );
      assertEquals(
        textOf(
          await host.call("py_get_docstring", { path: "signatures/shapes.py", name: "Shape" }),
        ),
        "A shape.",
      );
      const none = await host.call("py_get_docstring", {
        path: "signatures/shapes.py",
        name: "fallback",
      });
      assertEquals(none.structuredContent?.docstring, null);
    });
    await t.step("py_get_class_summary", async () => {
      const r = await host.call("py_get_class_summary", {
        path: "signatures/shapes.py",
        name: "Shape",
      });
      const text = textOf(r);
      assertStringIncludes(text, "class Shape:  # signatures/shapes.py:13-35");
      assertStringIncludes(text, "sides: int = 0  # signatures/shapes.py:16-16");
      assertStringIncludes(
        text,
        "@property def area(self) -> float:  # signatures/shapes.py:18-20",
      );
      const members = r.structuredContent!.members as Array<Record<string, unknown>>;
      assertEquals(members[0], {
        path: "signatures/shapes.py",
        start_line: 18,
        end_line: 20,
        kind: "method",
        name: "area",
        signature: "@property def area(self) -> float:",
      });
      assertStringIncludes(text, "@area.setter def area(self, value):");
      assert(!text.includes("return 0.0"), "no bodies");
    });
    await t.step("py_get_var_declaration and py_set_var_declaration", async () => {
      const r = await host.call("py_get_var_declaration", {
        path: "signatures/shapes.py",
        name: "LIMITS",
      });
      assertEquals(
        textOf(r),
        'signatures/shapes.py:7-10 LIMITS\nLIMITS = {\n    "low": 0,\n    "high": 10,\n}\n',
      );
      const attr = await host.call("py_get_var_declaration", {
        path: "signatures/shapes.py",
        name: "Shape.sides",
      });
      assertEquals(textOf(attr), "signatures/shapes.py:16-16 Shape.sides\n    sides: int = 0\n");
      const set = await host.call("py_set_var_declaration", {
        path: "signatures/shapes.py",
        name: "Shape.sides",
        content: "sides: int = 4",
      });
      assertEquals(set.isError, undefined, textOf(set));
      assertStringIncludes(await Deno.readTextFile(shapes), "\n    sides: int = 4\n");
      const missing = await host.call("py_get_var_declaration", {
        path: "signatures/shapes.py",
        name: "NOPE",
      });
      assertMatch(textOf(missing), /^not_found: .*RATIO, LIMITS/);
    });
  });

  await t.step("py_get_skeleton drops a licence header and cuts the module docstring", async () => {
    await Deno.mkdir(`${root.path}/licensed`);
    await Deno.writeTextFile(
      `${root.path}/licensed/m.py`,
      "#!/usr/bin/env python3\n# Copyright 2000 Someone\n# Licensed under the MIT License.\n\n" +
        '"""Tools for m.\n\nA long second paragraph\nthat a skeleton does not need.\n"""\n\n' +
        "def f(x):\n    return x\n",
    );
    const result = await host.call("py_get_skeleton", { path: "licensed/m.py" });
    assertEquals(
      textOf(result),
      "#!/usr/bin/env python3\n# (licence header left out: licensed/m.py:2-3)\n\n" +
        '"""Tools for m.\n"""\n# (the rest of the module docstring left out: licensed/m.py:5-9)\n\n' +
        "def f(x):\n    ...  # licensed/m.py:11-12\n",
    );
  });

  await t.step("py_get_skeleton keeps signatures and docstrings, drops bodies", async () => {
    await sample(root.path, "skeleton");
    const text = textOf(await host.call("py_get_skeleton", { path: "skeleton/shapes.py" }));
    assertStringIncludes(
      text,
      '        def describe(self):\n            """Say what it is."""\n            ...  # skeleton/shapes.py:27-29\n',
    );
    assertStringIncludes(
      text,
      "    def fallback(x, *, scale=RATIO):\n        ...  # skeleton/shapes.py:41-43\n",
    );
    assert(!text.includes("def inner"), "nested functions are part of bodies");
    assert(!text.includes('return "meta"'));
  });

  await t.step("py_get_imports lists modules, aliases and scopes", async () => {
    await sample(root.path, "imports");
    const r = await host.call("py_get_imports", { path: "imports/shapes.py" });
    assertEquals(r.structuredContent?.modules, ["math", "typing", "numpy"]);
    const imports = r.structuredContent?.imports as Array<Record<string, unknown>>;
    assertEquals(imports[1], {
      line: 3,
      kind: "from",
      module: "typing",
      names: [{ name: "Protocol", alias: "P" }],
      scope: "module",
    });
    assertEquals(imports[2]!.scope, "conditional");
  });

  await t.step("py_get_hierarchy follows dotted and aliased bases across a directory", async () => {
    const app = `${root.path}/hierarchy/app`;
    await Deno.mkdir(app, { recursive: true });
    await Deno.writeTextFile(
      `${app}/base.py`,
      "class Base:\n    pass\n\n\nclass Other:\n    pass\n",
    );
    await Deno.writeTextFile(
      `${app}/one.py`,
      "from app.base import Base\n\n\nclass Direct(Base):\n    pass\n",
    );
    await Deno.writeTextFile(
      `${app}/two.py`,
      "import app.base as ab\n\n\nclass Dotted(ab.Base, metaclass=type):\n    pass\n",
    );
    await Deno.writeTextFile(
      `${app}/three.py`,
      "from app.base import Base as B\nfrom app.one import Direct\n\n\nclass Aliased(B):\n    pass\n\n\nclass Grand(Direct):\n    class Inner(Aliased):\n        pass\n",
    );
    await Deno.writeTextFile(`${app}/four.py`, "class NotIt(Other):\n    pass\n");
    const r = await host.call("py_get_hierarchy", { path: "hierarchy/app", name: "Base" });
    const subs = r.structuredContent!.subclasses as Array<
      { name: string; depth: number; path: string }
    >;
    assertEquals(
      subs.map((s) => `${s.name}@${s.depth}`).sort(),
      ["Aliased@1", "Dotted@1", "Direct@1", "Grand@2", "Grand.Inner@2"].sort(),
    );
    assert(!textOf(r).includes("NotIt"));
    assertStringIncludes(textOf(r), "\n  Direct (hierarchy/app/one.py:4-5) bases: Base\n");
    const direct = subs.find((s) => s.name === "Direct") as Record<string, unknown> | undefined;
    assertEquals(direct?.start_line, 4);
    assertEquals(direct?.end_line, 5);
  });

  await t.step("py_check_syntax reports errors with line and column", async () => {
    await Deno.mkdir(`${root.path}/syntax`);
    await Deno.writeTextFile(
      `${root.path}/syntax/bad.py`,
      "def f(:\n    return 1\n\nx = [1, 2\n",
    );
    await Deno.writeTextFile(`${root.path}/syntax/good.py`, "def f():\n    return 1\n");
    const bad = await host.call("py_check_syntax", { path: "syntax/bad.py" });
    assertEquals(bad.structuredContent?.valid, false);
    const errors = bad.structuredContent!.errors as Array<{ line: number; column: number }>;
    assertEquals(errors[0]!.line, 1);
    const good = await host.call("py_check_syntax", { path: "syntax/good.py" });
    assertEquals(good.structuredContent, { valid: true, errors: [] });
  });

  await t.step("py_add_def places code with PEP 8 blank lines and re-indents it", async (t) => {
    const start =
      'import os\n\n\nclass A:\n    """Doc."""\n\n    def one(self):\n        return 1\n\n\ndef two():\n    return 2\n';
    await Deno.mkdir(`${root.path}/add`);
    await Deno.writeTextFile(`${root.path}/add/m.py`, start);
    const read = () => Deno.readTextFile(`${root.path}/add/m.py`);
    await t.step("a method at the end of a class, written unindented", async () => {
      const r = await host.call("py_add_def", {
        path: "add/m.py",
        name: "A.three",
        content: "def three(self):\n    return 3",
        anchor_type: "end",
        anchor_symbol: "A",
      });
      assertEquals(r.isError, undefined, textOf(r));
      assertEquals(
        await read(),
        'import os\n\n\nclass A:\n    """Doc."""\n\n    def one(self):\n        return 1\n\n    def three(self):\n        return 3\n\n\ndef two():\n    return 2\n',
      );
    });
    await t.step("a method at the start of a class goes after its docstring", async () => {
      await host.call("py_add_def", {
        path: "add/m.py",
        name: "zero",
        content: "        def zero(self):\n            return 0\n",
        anchor_type: "start",
        anchor_symbol: "A",
      });
      assertStringIncludes(
        await read(),
        '    """Doc."""\n\n    def zero(self):\n        return 0\n\n    def one(self):',
      );
    });
    await t.step(
      "a function before another, and at the start of the module (after imports)",
      async () => {
        await host.call("py_add_def", {
          path: "add/m.py",
          name: "before_two",
          content: "def before_two():\n    pass",
          anchor_type: "before",
          anchor_symbol: "two",
        });
        await host.call("py_add_def", {
          path: "add/m.py",
          name: "first",
          content: "@decorated\ndef first():\n    pass",
          anchor_type: "start",
          anchor_symbol: "",
        });
        const text = await read();
        assert(
          text.startsWith("import os\n\n\n@decorated\ndef first():\n    pass\n\n\nclass A:"),
          text,
        );
        assertStringIncludes(
          text,
          "        return 3\n\n\ndef before_two():\n    pass\n\n\ndef two():\n",
        );
      },
    );
    await t.step("refusals: existing name, wrong name, broken code", async () => {
      const before = await read();
      const dup = await host.call("py_add_def", {
        path: "add/m.py",
        name: "two",
        content: "def two():\n    pass",
      });
      assertMatch(textOf(dup), /^already_exists: /);
      const wrong = await host.call("py_add_def", {
        path: "add/m.py",
        name: "four",
        content: "def five():\n    pass",
      });
      assertMatch(textOf(wrong), /^invalid_argument: /);
      const broken = await host.call("py_add_def", {
        path: "add/m.py",
        name: "six",
        content: "def six(:\n    pass",
      });
      assertMatch(textOf(broken), /^syntax_error: /);
      assertEquals(await read(), before, "nothing written");
      const allowed = await host.call("py_add_def", {
        path: "add/m.py",
        name: "six",
        content: "def six(:\n    pass",
        allow_syntax_errors: true,
      });
      assertEquals(allowed.isError, undefined, textOf(allowed));
    });
  });

  await t.step("py_remove_def leaves pass in an emptied block and tidy blank lines", async () => {
    await Deno.mkdir(`${root.path}/remove`);
    await Deno.writeTextFile(
      `${root.path}/remove/m.py`,
      "class A:\n    def only(self):\n        return 1\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n",
    );
    await host.call("py_remove_def", { path: "remove/m.py", name: "A.only" });
    await host.call("py_remove_def", { path: "remove/m.py", name: "f" });
    assertEquals(
      await Deno.readTextFile(`${root.path}/remove/m.py`),
      "class A:\n    pass\n\n\ndef g():\n    pass\n",
    );
  });

  await t.step("py_move_def turns a method into a function in the same file, renamed", async () => {
    await Deno.mkdir(`${root.path}/move`);
    await Deno.writeTextFile(
      `${root.path}/move/m.py`,
      "class A:\n    def helper(self, x):\n        return x\n\n    def keep(self):\n        pass\n\n\ndef g():\n    pass\n",
    );
    const r = await host.call("py_move_def", {
      source: "move/m.py",
      destination: "move/m.py",
      name: "A.helper",
      destination_name: "helper_fn",
      anchor_type: "end",
      anchor_symbol: "",
    });
    assertEquals(r.isError, undefined, textOf(r));
    assertEquals(
      await Deno.readTextFile(`${root.path}/move/m.py`),
      "class A:\n    def keep(self):\n        pass\n\n\ndef g():\n    pass\n\n\ndef helper_fn(self, x):\n    return x\n",
    );
  });

  await t.step("py_move_def creates a destination module that does not exist yet", async () => {
    await Deno.mkdir(`${root.path}/newmod`);
    await Deno.writeTextFile(
      `${root.path}/newmod/m.py`,
      "import os\n\n\ndef keep():\n    pass\n\n\ndef helper(x):\n    return os.sep + x\n",
    );
    const r = await host.call("py_move_def", {
      source: "newmod/m.py",
      destination: "newmod/helpers.py",
      name: "helper",
    });
    assertEquals(r.isError, undefined, textOf(r));
    assertStringIncludes(textOf(r), 'to "helper" at newmod/helpers.py:1-2 (a new module)');
    assertEquals(
      await Deno.readTextFile(`${root.path}/newmod/helpers.py`),
      "def helper(x):\n    return os.sep + x\n",
    );
    assertEquals(
      await Deno.readTextFile(`${root.path}/newmod/m.py`),
      "import os\n\n\ndef keep():\n    pass\n",
    );
    const bad = await host.call("py_move_def", {
      source: "newmod/m.py",
      destination: "newmod/helpers.txt",
      name: "keep",
    });
    assertMatch(textOf(bad), /^invalid_argument: .*a new module's name ends in \.py/);
  });

  await t.step("py_add_def at the module's end goes before a trailing __main__ block", async () => {
    await Deno.mkdir(`${root.path}/mainguard`);
    await Deno.writeTextFile(
      `${root.path}/mainguard/m.py`,
      'def a():\n    pass\n\n\n# run it\nif __name__ == "__main__":\n    a()\n',
    );
    const r = await host.call("py_add_def", {
      path: "mainguard/m.py",
      name: "b",
      content: "def b():\n    return a()\n",
    });
    assertEquals(r.isError, undefined, textOf(r));
    assertEquals(
      await Deno.readTextFile(`${root.path}/mainguard/m.py`),
      'def a():\n    pass\n\n\ndef b():\n    return a()\n\n\n# run it\nif __name__ == "__main__":\n    a()\n',
    );
  });

  await t.step("py_region_wrap fences whole statements only", async () => {
    await Deno.mkdir(`${root.path}/region`);
    await Deno.writeTextFile(
      `${root.path}/region/m.py`,
      'class A:\n    x = 1\n    y = """a\nb"""\n    z = 3\n',
    );
    const r = await host.call("py_region_wrap", {
      path: "region/m.py",
      start_line: 2,
      end_line: 2,
      region_name: "fields",
    });
    assertEquals(r.isError, undefined, textOf(r));
    assertEquals(
      await Deno.readTextFile(`${root.path}/region/m.py`),
      'class A:\n    #region fields\n    x = 1\n    #endregion\n    y = """a\nb"""\n    z = 3\n',
    );
    const inside = await host.call("py_region_wrap", {
      path: "region/m.py",
      start_line: 6,
      end_line: 7,
      region_name: "bad",
    });
    assertMatch(textOf(inside), /^invalid_argument: /);
  });

  await t.step("py edits keep CRLF, BOM and a missing final newline", async () => {
    const bytes = new TextEncoder().encode(
      "\ufeffdef f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2",
    );
    await Deno.mkdir(`${root.path}/eol`);
    await Deno.writeFile(`${root.path}/eol/m.py`, bytes);
    const r = await host.call("py_update_definition", {
      path: "eol/m.py",
      name: "f",
      content: "def f():\n    return 10\n",
    });
    assertEquals(r.isError, undefined, textOf(r));
    const after = await Deno.readFile(`${root.path}/eol/m.py`);
    assertEquals([...after.slice(0, 3)], [0xef, 0xbb, 0xbf]);
    assertEquals(
      new TextDecoder().decode(after.slice(3)),
      "def f():\r\n    return 10\r\n\r\n\r\ndef g():\r\n    return 2",
    );
    await host.call("py_update_definition", {
      path: "eol/m.py",
      name: "g",
      content: "def g():\n    return 20",
    });
    assertEquals(
      new TextDecoder().decode((await Deno.readFile(`${root.path}/eol/m.py`)).slice(3)),
      "def f():\r\n    return 10\r\n\r\n\r\ndef g():\r\n    return 20",
    );
  });

  await t.step(
    "py_get_code_outline on a directory outlines every Python file, a page at a time",
    async () => {
      const pkg = `${root.path}/outline_dir/pkg`;
      await Deno.mkdir(`${pkg}/sub`, { recursive: true });
      await Deno.writeTextFile(`${pkg}/a.py`, SAMPLE);
      await Deno.writeTextFile(`${pkg}/sub/b.py`, "def b():\n    pass\n");
      await Deno.writeTextFile(`${pkg}/sub/c.pyi`, "class C: ...\n");
      await Deno.writeTextFile(`${pkg}/readme.txt`, "def not_python(): pass\n");
      const all = await host.call("py_get_code_outline", { path: "outline_dir/pkg" });
      const files = all.structuredContent!.files as Array<{ path: string; symbols: unknown[] }>;
      assertEquals(files.map((f) => f.path), [
        "outline_dir/pkg/a.py",
        "outline_dir/pkg/sub/b.py",
        "outline_dir/pkg/sub/c.pyi",
      ]);
      assertStringIncludes(textOf(all), "\n[Func] b (outline_dir/pkg/sub/b.py:1-2)\n");
      const page = await host.call("py_get_code_outline", {
        path: "outline_dir/pkg",
        limit: 1,
        offset: 1,
      });
      assertEquals((page.structuredContent!.files as unknown[]).length, 1);
      assertEquals(page.structuredContent!.next_offset, 2);
      assertStringIncludes(textOf(page), "offset: 2");
      const last = await host.call("py_get_code_outline", {
        path: "outline_dir/pkg",
        limit: 1,
        offset: 2,
      });
      assertEquals(
        (last.structuredContent!.files as Array<{ path: string }>).map((f) => f.path),
        ["outline_dir/pkg/sub/c.pyi"],
      );
      assertEquals(last.structuredContent!.next_offset, undefined, "the last page says no more");
    },
  );
});

Deno.test("py_get_code_outline on a directory keeps each reply within the output limit, and pages on", async () => {
  await using root = await tempDir();
  await Deno.mkdir(`${root.path}/pkg`);
  const body = Array.from({ length: 40 }, (_, i) => `def f${i}():\n    pass\n`).join("\n");
  for (let i = 0; i < 30; i++) await Deno.writeTextFile(`${root.path}/pkg/m${i}.py`, body);
  await using host = await testHost({
    roots: [root.path],
    config: { limits: { maxOutputChars: 20_000 } },
  });
  const seen: string[] = [];
  let offset = 0;
  for (let calls = 0; calls < 30; calls++) {
    const page = await host.call("py_get_code_outline", { path: "pkg", limit: 5000, offset });
    const size = JSON.stringify(page).length;
    assert(size < 20_000 + 2_000, `a reply of ${size} characters`);
    const data = page.structuredContent as { files: Array<{ path: string }>; next_offset?: number };
    seen.push(...data.files.map((file) => file.path));
    if (data.next_offset === undefined) break;
    assertStringIncludes(textOf(page), "this reply reached its size limit");
    assertEquals(data.next_offset, offset + data.files.length);
    offset = data.next_offset;
  }
  assertEquals(seen.length, 30, "every file once");
  assertEquals(new Set(seen).size, 30);
  assert(offset > 0, "it took more than one page");
});

Deno.test("py tools: concurrent calls on one worker share the parse of a file (none sees a deleted tree)", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/shapes.py`, SAMPLE);
  await using host = await testHost({ roots: [root.path], config: { workers: 1 } });
  const results = await Promise.all(
    Array.from(
      { length: 24 },
      (_, i) =>
        i % 2 === 0
          ? host.call("py_get_definition", { path: "shapes.py", name: "Shape.Meta.describe" })
          : host.call("py_get_code_outline", { path: "shapes.py" }),
    ),
  );
  for (const result of results) assertEquals(result.isError, undefined, textOf(result));
});
