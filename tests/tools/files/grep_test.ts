import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { canRun, tempDir, testHost, textOf } from "../../_helpers.ts";
import { type LaunchedHost, launchHost } from "../../_mcp.ts";

async function write(path: string, content: string | Uint8Array): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  if (typeof content === "string") await Deno.writeTextFile(path, content);
  else await Deno.writeFile(path, content);
}

const PYTHON = `import os


def foo(x):
    """Return foo of x."""
    return os.path.join(x, "foo")


class Foo:
    def bar(self):
        return foo(1)
`;

/** The launch users run, with ripgrep; a fallback to the walker would be warned on its stderr. */
async function rgHost(root: string): Promise<LaunchedHost> {
  const host = await launchHost({ roots: [root] });
  assertMatch(host.session.stderr(), /ripgrep \S+ in use/, "ripgrep is installed and runs");
  return host;
}

/** What the server warned about ripgrep (a fallback to the walker is warned). */
function rgWarnings(host: LaunchedHost): string[] {
  return host.session.stderr().split("\n").filter((line) => /warn: ripgrep/.test(line));
}

Deno.test("grep finds lines, grouped by file, with context and a bounded page", async (t) => {
  await using root = await tempDir();
  await write(`${root.path}/src/a.py`, PYTHON);
  await write(`${root.path}/src/b.py`, "x = 1\nfoo = 2\n");
  await write(`${root.path}/README.md`, "call foo() first\n");
  await using host = await testHost({ roots: [root.path] });

  await t.step("matches as path:line: text, sorted by path", async () => {
    const result = await host.call("grep", { pattern: "\\bfoo\\b" });
    assertEquals(
      textOf(result),
      [
        "README.md:1: call foo() first",
        "",
        'src/a.py:4: def foo(x):\nsrc/a.py:5:     """Return foo of x."""\nsrc/a.py:6:     return os.path.join(x, "foo")\nsrc/a.py:11:         return foo(1)',
        "",
        "src/b.py:2: foo = 2",
      ].join("\n"),
    );
    const data = result.structuredContent as { matches: unknown[]; truncated: boolean };
    assertEquals(data.matches[0], { path: "README.md", line: 1, text: "call foo() first" });
    assertEquals(data.matches.length, 6);
    assertFalse(data.truncated);
  });
  await t.step("context lines are marked with - and hunks split by --", async () => {
    const result = await host.call("grep", {
      path: "src/a.py",
      pattern: "^class|return foo",
      context: 1,
    });
    assertEquals(
      textOf(result),
      "src/a.py-8- \nsrc/a.py:9: class Foo:\nsrc/a.py-10-     def bar(self):\nsrc/a.py:11:         return foo(1)",
    );
  });
  await t.step("max_results and offset page through the matches", async () => {
    const first = await host.call("grep", { pattern: "foo", max_results: 2, ignore_case: true });
    assertMatch(textOf(first), /call again with offset 2/);
    assertEquals((first.structuredContent as { next_offset: number }).next_offset, 2);
    const all = await host.call("grep", { pattern: "foo", ignore_case: true });
    const paged: unknown[] = [];
    for (let offset = 0; offset < 20; offset += 2) {
      const page = await host.call("grep", {
        pattern: "foo",
        ignore_case: true,
        max_results: 2,
        offset,
      });
      paged.push(...(page.structuredContent as { matches: unknown[] }).matches);
      if (!(page.structuredContent as { truncated: boolean }).truncated) break;
    }
    assertEquals(paged, (all.structuredContent as { matches: unknown[] }).matches);
  });
  await t.step("literal, ignore_case and glob", async () => {
    const literal = await host.call("grep", { pattern: "foo()", literal: true });
    assertEquals(textOf(literal), "README.md:1: call foo() first");
    const glob = await host.call("grep", { pattern: "FOO", ignore_case: true, glob: "b.*" });
    assertEquals(textOf(glob), "src/b.py:2: foo = 2");
  });
  await t.step("bad patterns are invalid_argument", async () => {
    for (const pattern of ["foo(", "(?<=a)b", "(a)\\1", "a\nb"]) {
      const result = await host.call("grep", { pattern });
      assertEquals(result.isError, true, pattern);
      assertMatch(textOf(result), /^invalid_argument: /);
    }
  });
  await t.step("no match says so", async () => {
    assertEquals(textOf(await host.call("grep", { pattern: "zzz" })), 'No matches for "zzz" in .');
  });
});

Deno.test("grep skips binary and oversized files, cuts long lines, honours .gitignore", async () => {
  await using root = await tempDir();
  await write(
    `${root.path}/bin.dat`,
    new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
  );
  await write(`${root.path}/big.txt`, `needle\n${"x".repeat(30_000)}\n`);
  await write(`${root.path}/long.txt`, `${"a".repeat(2000)} needle ${"b".repeat(2000)}\n`);
  await write(`${root.path}/ignored.txt`, "needle\n");
  await write(`${root.path}/.gitignore`, "ignored.txt\n");
  await write(`${root.path}/node_modules/m/i.js`, "needle\n");
  await using host = await testHost({
    roots: [root.path],
    config: { limits: { maxSearchFileBytes: 20_000 } },
  });
  const result = await host.call("grep", { pattern: "needle" });
  const text = textOf(result);
  assertMatch(text, /^long\.txt:1: …a+ needle b+… \[line cut: 4008 characters\]$/);
  assert(text.length < 400);
  const all = await host.call("grep", {
    pattern: "needle",
    include_ignored: true,
    include_git_and_node_modules: true,
  });
  assertEquals(
    (all.structuredContent as { matches: Array<{ path: string }> }).matches.map((m) => m.path),
    ["ignored.txt", "long.txt", "node_modules/m/i.js"],
  );
  const binary = await host.call("grep", { path: "bin.dat", pattern: "needle" });
  assertMatch(textOf(binary), /^binary_file: /);
  const big = await host.call("grep", { path: "big.txt", pattern: "needle" });
  assertMatch(textOf(big), /^too_large: /);
});

Deno.test("grep never searches through a symlink to outside the root", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await write(`${outside.path}/secret.txt`, "s3cret needle\n");
  await Deno.symlink(outside.path, `${root.path}/out`);
  await Deno.symlink(`${outside.path}/secret.txt`, `${root.path}/secret_link.txt`);
  await write(`${root.path}/in.txt`, "needle\n");
  for (const ripgrep of ["off", "auto"]) {
    await using host = await launchHost({ roots: [root.path], ripgrep });
    const result = await host.call("grep", { pattern: "needle" });
    assertEquals(textOf(result), "in.txt:1: needle", ripgrep);
    const direct = await host.call("grep", { path: "secret_link.txt", pattern: "needle" });
    assertMatch(textOf(direct), /^path_denied: /);
    assertFalse(textOf(direct).includes("s3cret"));
  }
});

/** Files whose bytes make JS and Rust regular expressions disagree unless translated. */
async function trickyTexts(root: string): Promise<void> {
  const utf16 = new Uint8Array([
    0xff,
    0xfe,
    ..."héllo wörld foo\n".split("").flatMap((c) => [c.charCodeAt(0), 0]),
  ]);
  const nulLate = new Uint8Array(9000 + 20);
  nulLate.fill(0x61, 0, 9000);
  nulLate.set(new TextEncoder().encode("\n\0\nfoo after nul\n"), 9000);
  const files: Record<string, string | Uint8Array> = {
    "a.py": PYTHON,
    "unicode.txt": "café foo\nnaïve_bar\n😀x😀 foo\néa\nſ K\nx\u00a0y\n\ufeffbom-space\n",
    "latin1.txt": new Uint8Array([
      0x63,
      0x61,
      0x66,
      0xe9,
      0x20,
      0x66,
      0x6f,
      0x6f,
      0x0a,
      0x61,
      0xe9,
      0x62,
      0x0a,
    ]),
    "utf16.txt": utf16,
    "crlf.txt": "foo\r\nbar foo\r\n",
    "no_newline.txt": "last foo",
    "nul_late.bin": nulLate,
    "nul_early.bin": new Uint8Array([0x66, 0x6f, 0x6f, 0, 0x0a]),
    "sub/deep/x.rs": "fn foo() -> u32 { 42 }\n// TODO: foo\n",
    "sub/y.txt": "100 200 3000\n",
    ".gitignore": "*.log\n",
    "skip.log": "foo\n",
  };
  for (const [path, content] of Object.entries(files)) await write(`${root}/${path}`, content);
}

Deno.test(
  "grep gives the same results with ripgrep and with the walker",
  { ignore: !canRun("rg") },
  async () => {
    await using root = await tempDir();
    await trickyTexts(root.path);

    await using js = await launchHost({ roots: [root.path], ripgrep: "off" });
    await using rg = await rgHost(root.path);
    const cases: Array<Record<string, unknown>> = [
      { pattern: "foo" },
      { pattern: "\\bfoo\\b" },
      { pattern: "f.o" },
      { pattern: "caf.\\s" },
      { pattern: "a.b" },
      { pattern: "x.x" },
      { pattern: "^\\s*def " },
      { pattern: "foo$" },
      { pattern: "[^a-z ]foo" },
      { pattern: "\\W\\w" },
      { pattern: "\\d{3,}" },
      { pattern: "\\D\\S\\s" },
      { pattern: "\\ba" },
      { pattern: "x\\sy" },
      { pattern: "(?<word>fo+)|bar" },
      { pattern: "\\p{Lu}" },
      { pattern: "[\\w-]+\\(" },
      { pattern: "^$" },
      { pattern: "K", ignore_case: true },
      { pattern: "S", ignore_case: true },
      { pattern: "FOO", ignore_case: true, context: 1 },
      { pattern: "a.b", literal: true },
      { pattern: "foo", glob: "*.txt" },
      { pattern: "foo", glob: "sub/**/*.rs" },
      { pattern: "foo", include_ignored: true },
      { pattern: "foo", path: "sub" },
      { pattern: "foo", max_results: 3, offset: 3 },
      { pattern: "é" },
    ];
    for (const args of cases) {
      const a = await js.call("grep", args);
      const b = await rg.call("grep", args);
      assertEquals(textOf(b), textOf(a), JSON.stringify(args));
      const { engine: viaRg, ...fromRg } = b.structuredContent ?? {};
      const { engine: viaWalker, ...fromWalker } = a.structuredContent ?? {};
      assertEquals(fromRg, fromWalker, JSON.stringify(args));
      // Non-ASCII patterns, and a start below a .gitignore, are the walker's by design.
      const walks = args.pattern === "é" || "path" in args;
      assertEquals(
        [viaRg, viaWalker],
        [walks ? "walker" : "ripgrep", "walker"],
        JSON.stringify(args),
      );
    }
    assertEquals(rgWarnings(rg), [], "ripgrep ran for every search (no fallback)");
    const late = await js.call("grep", { pattern: "after nul" });
    assertStringIncludes(textOf(late), "nul_late.bin:3: foo after nul");
    assertFalse(textOf(await js.call("grep", { pattern: "foo" })).includes("nul_early"));
  },
);

Deno.test("grep honours cancellation", async () => {
  await using root = await tempDir();
  // Long enough (about 10 MB) to run well past the first turn of the worker's event loop.
  for (let i = 0; i < 1000; i++) {
    await write(`${root.path}/d${i % 20}/f${i}.txt`, "x\n".repeat(5000));
  }
  await using host = await testHost({ roots: [root.path] });
  const controller = new AbortController();
  const pending = host.call("grep", { pattern: "never-there" }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 5);
  const result = await pending;
  assertEquals(result.isError, true);
  assertMatch(textOf(result), /^cancelled: /);
});
