/**
 * `rename_symbol` in the launch users run, on a copy of python3's `email`
 * package and a small package of harder cases: only the symbol's own names
 * change (checked token by token with Python's `tokenize`), the code still
 * imports and compiles, the dry run's diff is what the real run writes, and
 * what it cannot do safely it refuses or leaves alone, saying so.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";
import { appliedDiff, PKG, writeMailkit, writeTree } from "./_fixtures.ts";

/**
 * Prints, for each pair of Python files given (before, after), the tokens that differ between
 * them, as one JSON list: one Python start for every file checked.
 */
const TOKEN_DIFF = `
import json, sys, tokenize
def tokens(path):
    with open(path, "rb") as f:
        return [(tokenize.tok_name[t.type], t.string) for t in tokenize.tokenize(f.readline)]
def differ(a, b):
    if len(a) != len(b):
        return "token counts differ"
    return [[x[0], x[1], y[1]] for x, y in zip(a, b) if x != y]
pairs = zip(sys.argv[1::2], sys.argv[2::2])
print(json.dumps([differ(tokens(a), tokens(b)) for a, b in pairs]))
`;

async function python(args: string[], cwd: string): Promise<{ ok: boolean; out: string }> {
  const output = await new Deno.Command("python3", {
    args,
    cwd,
    env: { PYTHONPATH: cwd, PYTHONDONTWRITEBYTECODE: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { ok: output.success, out: decode(output.stdout) + decode(output.stderr) };
}

/** Every file under a directory (but the host's own state), by relative path. */
async function snapshot(root: string, dir = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(`${root}/${dir}`)) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (rel === ".toolhost") continue;
    if (entry.isDirectory) { for (const [k, v] of await snapshot(root, rel)) out.set(k, v); }
    else if (entry.isFile) out.set(rel, await Deno.readTextFile(`${root}/${rel}`));
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((path) => before.get(path) !== after.get(path)).sort();
}

async function rename(session: StdioSession, args: Record<string, unknown>) {
  const result = await session.call("rename_symbol", args);
  return {
    error: result.isError === true,
    text: resultText(result),
    data: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

Deno.test("rename_symbol renames a function across the email package and nothing else", async (t) => {
  await using root = await tempDir();
  await writeMailkit(root.path);
  await using session = await connectStdio([root.path]);
  const original = await snapshot(root.path);
  const args = { path: "mailkit/_parseaddr.py", name: "quote", new_name: "quote_string" };

  await t.step(
    "a new name that collides, shadows or is no identifier is refused; nothing is written",
    async () => {
      const cases: Array<[string, RegExp]> = [
        [
          "unquote",
          /^conflict: .*mailkit\/utils\.py:\d+: "unquote" is already defined in the module/,
        ],
        ["len", /^conflict: .*: this use of "len" would then refer to the renamed symbol/],
        ["class", /^invalid_argument: Cannot rename to "class": it is a Python keyword/],
        ["2quote", /^invalid_argument: Cannot rename to "2quote": it is not a Python identifier/],
        ["quote", /^invalid_argument: Cannot rename "quote": the new name is the same/],
      ];
      for (const [newName, error] of cases) {
        const result = await rename(session, { ...args, new_name: newName });
        assert(result.error, newName);
        assertMatch(result.text, error);
      }
      assertEquals(changed(original, await snapshot(root.path)), []);
    },
  );

  let dryDiff = "";
  await t.step("the dry run shows the diff and writes nothing", async () => {
    const dry = await rename(session, { ...args, dry_run: true });
    assert(!dry.error, dry.text);
    assertStringIncludes(dry.text, 'Would rename "quote" to "quote_string" at 7 sites in 3 files');
    assertEquals(dry.data.files, [
      "mailkit/_parseaddr.py",
      "mailkit/message.py",
      "mailkit/utils.py",
    ]);
    assertEquals(changed(original, await snapshot(root.path)), []);
    dryDiff = dry.data.diff as string;
  });

  await t.step("the real run writes exactly the dry run's diff", async () => {
    const real = await rename(session, args);
    assert(!real.error, real.text);
    assertStringIncludes(real.text, 'Renamed "quote" to "quote_string" at 7 sites in 3 files');
    assertEquals(real.data.diff, dryDiff);
    const now = await snapshot(root.path);
    assertEquals(changed(original, now), [
      "mailkit/_parseaddr.py",
      "mailkit/message.py",
      "mailkit/utils.py",
    ]);
    for (const [path, text] of appliedDiff(dryDiff, original)) {
      assertEquals(now.get(path), text, path);
    }
  });

  await t.step("only the symbol's names changed, token by token", async () => {
    const expected: Record<string, string[][]> = {
      "mailkit/_parseaddr.py": [
        ["STRING", "'quote'", "'quote_string'"],
        ["NAME", "quote", "quote_string"],
        ["NAME", "quote", "quote_string"],
      ],
      "mailkit/message.py": [["NAME", "quote", "quote_string"]],
      "mailkit/utils.py": [
        ["NAME", "quote", "quote_string"],
        ["NAME", "quote", "quote_string"],
        ["NAME", "quote", "quote_string"],
      ],
    };
    const paths = Object.keys(expected);
    const pairs: string[] = [];
    for (const [i, path] of paths.entries()) {
      await Deno.writeTextFile(`${root.path}/before${i}.py`, original.get(path)!);
      pairs.push(`before${i}.py`, path);
    }
    const diff = await python(["-c", TOKEN_DIFF, ...pairs], root.path);
    assert(diff.ok, diff.out);
    const found: unknown[] = JSON.parse(diff.out);
    for (const [i, path] of paths.entries()) assertEquals(found[i], expected[path], path);
    for (const i of paths.keys()) await Deno.remove(`${root.path}/before${i}.py`);
  });

  await t.step(
    "the package still compiles and imports, and the function works under its new name",
    async () => {
      const compiled = await python(["-m", "compileall", "-q", "mailkit", "shlex.py"], root.path);
      assert(compiled.ok, compiled.out);
      const check = [
        "import mailkit, mailkit.utils, mailkit.message, mailkit._parseaddr, shlex",
        "assert mailkit.utils.quote_string is mailkit._parseaddr.quote_string",
        "assert not hasattr(mailkit._parseaddr, 'quote')",
        "assert shlex.quote('a b') == \"'a b'\"",
        "print(mailkit.utils.formataddr(('A \"B\"', 'a@b.example')))",
        "m = mailkit.message.Message(); m.set_param('x', 'a\"b'); print(m['Content-Type'])",
      ].join("\n");
      const ran = await python(["-c", check], root.path);
      assert(ran.ok, ran.out);
      assertEquals(ran.out, '"A \\"B\\"" <a@b.example>\ntext/plain; x="a\\"b"\n');
    },
  );
});

Deno.test("rename_symbol leaves unsure sites and aliases alone and says so", async (t) => {
  await using root = await tempDir();
  await writeTree(root.path, PKG);
  await using session = await connectStdio([root.path]);

  await t.step(
    "a parameter is refused: keyword arguments at call sites are not followed",
    async () => {
      const result = await rename(session, {
        path: "pkg/core.py",
        name: "helper.x",
        new_name: "y",
      });
      assert(result.error, result.text);
      assertMatch(result.text, /^conflict: .*it is a parameter/);
    },
  );

  await t.step(
    "a method with an unsure site is refused until told what to do with it",
    async () => {
      const before = await snapshot(root.path);
      const result = await rename(session, {
        path: "pkg/core.py",
        name: "Widget.draw",
        new_name: "paint",
      });
      assert(result.error, result.text);
      assertMatch(
        result.text,
        /^unsure_sites: Cannot rename "draw" yet: 1 site is unsure .*pkg\/core\.py:32:9 \(overrides Widget\.draw in subclass Button\)/,
      );
      const named = await rename(session, {
        path: "pkg/core.py",
        name: "Widget.draw",
        new_name: "paint",
        include_unsure: ["pkg/core.py:99:1"],
      });
      assertMatch(
        named.text,
        /^invalid_argument: include_unsure names no unsure site at pkg\/core\.py:99:1/,
      );
      assertEquals(changed(before, await snapshot(root.path)), []);
    },
  );

  await t.step(
    "a method: told to leave it, the override in a subclass is listed, not renamed",
    async () => {
      const result = await rename(session, {
        path: "pkg/core.py",
        name: "Widget.draw",
        new_name: "paint",
        include_unsure: "none",
      });
      assert(!result.error, result.text);
      assertStringIncludes(result.text, 'Renamed "draw" to "paint" at 5 sites in 2 files');
      assertStringIncludes(result.text, "Left alone (unsure, or reached through an alias): 1");
      assertStringIncludes(
        result.text,
        "[definition, unsure: overrides Widget.draw in subclass Button]",
      );
      const core = await Deno.readTextFile(`${root.path}/pkg/core.py`);
      assertStringIncludes(core, "    def paint(self):\n        return self.render()");
      assertStringIncludes(core, "return cls().paint()");
      assertStringIncludes(core, "return self.draw(), super().paint()");
      assertStringIncludes(core, "    def draw(self):\n        return 2");
      const user = await Deno.readTextFile(`${root.path}/pkg/sub/user.py`);
      assertStringIncludes(user, "    w.paint()\n    Widget.paint(w)\n");
    },
  );

  await t.step(
    "a function: the import under an alias is renamed, the alias and dynamic uses are not",
    async () => {
      const before = await snapshot(root.path);
      const result = await rename(session, {
        path: "pkg/core.py",
        name: "helper",
        new_name: "assist",
        include_unsure: "none",
      });
      assert(!result.error, result.text);
      assertEquals(result.data.mentions_left, [
        'pkg/core.py:1: """helper in a docstring."""',
        "pkg/core.py:6: # helper in a comment",
        'pkg/core.py:21: return "helper"',
        'pkg/core.py:47: return "helper(1) # helper"',
        'pkg/sub/user.py:18: getattr(core, "helper")',
      ]);
      const left = result.data.left_alone as Array<
        { line: number; via?: string; certainty: string }
      >;
      assertEquals(left.map((site) => `${site.line}:${site.via ?? site.certainty}`), [
        "17:h",
        "18:unsure",
        "24:unsure",
        "24:unsure",
        "31:unsure",
      ]);
      const user = (await Deno.readTextFile(`${root.path}/pkg/sub/user.py`)).split("\n");
      assertEquals(user[0], "from .. import assist as h");
      assertEquals(user[13], "    core.assist(1)");
      assertEquals(user[16], "    h(4)");
      assertEquals(user[17], '    getattr(core, "helper")');
      assertEquals(user[23], "    return helper(5), unknown.helper(6)");
      const core = await Deno.readTextFile(`${root.path}/pkg/core.py`);
      assertStringIncludes(core, '"""helper in a docstring."""');
      assertStringIncludes(core, "# helper in a comment");
      assertStringIncludes(core, "total = [helper(i) for helper in items for i in helper]");
      assertStringIncludes(core, "first = [assist(x) for x in items]");
      assertStringIncludes(core, "square = lambda helper: helper * 2");
      assertStringIncludes(core, "dict(helper=1), helperish()");
      const init = await Deno.readTextFile(`${root.path}/pkg/__init__.py`);
      assertStringIncludes(
        init,
        'from .core import assist, Widget\nfrom . import core\n__all__ = ["assist", "Widget"]',
      );
      assertEquals(changed(before, await snapshot(root.path)), [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/sub/user.py",
      ]);
      const compiled = await python(["-m", "compileall", "-q", "pkg"], root.path);
      assert(compiled.ok, compiled.out);
    },
  );

  await t.step(
    "a file changed since the agent read it is refused before anything is written",
    async () => {
      const read = await session.call("read_file", { path: "pkg/core.py" });
      assert(!read.isError, resultText(read));
      await Deno.writeTextFile(
        `${root.path}/pkg/core.py`,
        `${await Deno.readTextFile(`${root.path}/pkg/core.py`)}# edited elsewhere\n`,
      );
      const before = await snapshot(root.path);
      const result = await rename(session, {
        path: "pkg/core.py",
        name: "assist",
        new_name: "aid",
      });
      assert(result.error, result.text);
      assertMatch(result.text, /^stale_read: /);
      assertEquals(changed(before, await snapshot(root.path)), []);
    },
  );
});
