import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { canRun, missing, tempDir, testHost, textOf } from "../../_helpers.ts";
import { type LaunchedHost, launchHost } from "../../_mcp.ts";
import { unreadableEntry } from "../../../tools/files/_ripgrep.ts";

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
  await t.step("limit and offset page through the matches", async () => {
    const first = await host.call("grep", { pattern: "foo", limit: 2, ignore_case: true });
    assertMatch(textOf(first), /call again with offset 2/);
    assertEquals((first.structuredContent as { next_offset: number }).next_offset, 2);
    const all = await host.call("grep", { pattern: "foo", ignore_case: true });
    const paged: unknown[] = [];
    for (let offset = 0; offset < 20; offset += 2) {
      const page = await host.call("grep", {
        pattern: "foo",
        ignore_case: true,
        limit: 2,
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
  await t.step("what the linear-time engine cannot do is said", async () => {
    const unsupported: Record<string, RegExp> = {
      "(?=a)b": /: lookahead and lookbehind are not supported \(grep runs in linear time;/,
      "(?<!a)b": /: lookahead and lookbehind are not supported/,
      "(a)\\1": /: backreferences are not supported/,
      "(?<x>a)\\k<x>": /: backreferences are not supported/,
      "a{1001}": /: repetition counts over 1000 .* are not supported/,
      "(?:a{100}){100}": /: repetition counts over 1000 .* are not supported/,
      "\\p{ASCII}": /: \\p\{ASCII\} is not supported \(use a general category such as \\p\{L\}/,
      "\\uD800": /: escapes of lone surrogates .* are not supported/,
    };
    for (const [pattern, said] of Object.entries(unsupported)) {
      const result = await host.call("grep", { pattern });
      assertMatch(textOf(result), /^invalid_argument: Cannot use pattern /, pattern);
      assertMatch(textOf(result), said, pattern);
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
  const [first, note, ...rest] = textOf(result).split("\n");
  assertMatch(first!, /^long\.txt:1: …a+ needle b+… \[line cut: 4008 characters\]$/);
  assert(first!.length < 400);
  // Both hold the needle: one is over the limit, the other binary. Neither fails the call.
  assertEquals(note, "skipped: 2 (first: big.txt: over the 19.5 KB size limit)");
  assertEquals(rest, []);
  assertEquals((result.structuredContent as { skipped: unknown }).skipped, {
    count: 2,
    first: { path: "big.txt", reason: "over the 19.5 KB size limit" },
  });
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

/**
 * The launch users run, once with the walker and once with ripgrep, shared by the tests below:
 * each has its own directory of the root and searches only there.
 */
Deno.test("grep in the launch users run, with the walker and with ripgrep", async (t) => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await trickyTexts(`${root.path}/tricky`);
  await write(`${outside.path}/secret.txt`, "s3cret needle\n");
  await write(`${root.path}/links/in.txt`, "needle\n");
  await Deno.symlink(outside.path, `${root.path}/links/out`);
  await Deno.symlink(`${outside.path}/secret.txt`, `${root.path}/links/secret_link.txt`);
  await using js = await launchHost({ roots: [root.path], ripgrep: "off" });
  // `--ripgrep=auto` is the default: the launch users run, which says ripgrep is in use.
  await using rg = await rgHost(root.path);

  // First, so that the warnings it reads are those of its own searches and the start.
  await t.step({
    name: "grep gives the same results with ripgrep and with the walker",
    ignore: !canRun("rg"),
    fn: async () => {
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
        { pattern: "foo", limit: 3, offset: 3 },
        { pattern: "é" },
      ];
      for (const args of cases) {
        // Paths are under this test's directory, which holds the .gitignore.
        const call = { ...args, path: "path" in args ? `tricky/${args.path}` : "tricky" };
        const a = await js.call("grep", call);
        const b = await rg.call("grep", call);
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
      const late = await js.call("grep", { path: "tricky", pattern: "after nul" });
      assertStringIncludes(textOf(late), "tricky/nul_late.bin:3: foo after nul");
      // A binary file with a match is said, its lines never shown.
      const foo = textOf(await js.call("grep", { path: "tricky", pattern: "foo" }));
      assertFalse(/^tricky\/nul_early\.bin:/m.test(foo), foo);
      assertStringIncludes(
        foo,
        "\nskipped: 1 (first: tricky/nul_early.bin: binary file (unknown binary data))",
      );
    },
  });

  await t.step("grep never searches through a symlink to outside the root", async () => {
    for (const [ripgrep, host] of [["off", js], ["auto", rg]] as const) {
      const result = await host.call("grep", { path: "links", pattern: "needle" });
      // The walker counts the links it does not follow; ripgrep's walk leaves them out unsaid.
      assertEquals(
        textOf(result),
        ripgrep === "off"
          ? "links/in.txt:1: needle\nskipped: 2 (first: links/out: symlink (never followed))"
          : "links/in.txt:1: needle",
        ripgrep,
      );
      const direct = await host.call("grep", { path: "links/secret_link.txt", pattern: "needle" });
      assertMatch(textOf(direct), /^path_denied: /);
      assertFalse(textOf(direct).includes("s3cret"));
    }
  });
});

Deno.test("grep honours cancellation", async () => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });
  // Cancelled when its first progress says it is under way. A search that ends before it reports
  // any progress is run again over twice the files (about 10 MB at first).
  for (let files = 0, more = 1000;; more = files) {
    for (let i = files; i < files + more; i++) {
      await write(`${root.path}/d${i % 20}/f${i}.txt`, "x\n".repeat(5000));
    }
    files += more;
    const controller = new AbortController();
    const result = await host.call("grep", { pattern: "never-there" }, {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    if (!controller.signal.aborted) continue;
    assertEquals(result.isError, true);
    assertMatch(textOf(result), /^cancelled: /);
    return;
  }
});

Deno.test("grep answers patterns that backtrack catastrophically in JavaScript", async () => {
  await using root = await tempDir();
  // The first line matches (so ripgrep proposes the file); the others make a backtracking
  // engine try about 2^5000 ways to fail.
  const failing = `${"a".repeat(5000)}!\n`.repeat(20);
  await write(`${root.path}/crafted.txt`, `${"a".repeat(30)}\n${failing}`);
  for (const ripgrep of ["off", ...(canRun("rg") ? ["auto"] : [])]) {
    // Without a linear-time engine each call would end at this limit.
    await using host = await testHost({
      roots: [root.path],
      ripgrep,
      config: { callTimeoutMs: 20_000 },
    });
    for (const pattern of ["(a+)+$", "(a|aa)+$", "(.*a){20}$", "(\\w+\\s?)+$", "^(a|a?)+$"]) {
      const result = await host.call("grep", { pattern });
      assertEquals(result.isError, undefined, `${ripgrep} ${pattern}: ${textOf(result)}`);
      const data = result.structuredContent as { matches: Array<{ line: number }>; engine: string };
      assertEquals(data.matches.map((m) => m.line), [1], `${ripgrep} ${pattern}`);
      assertEquals(data.engine, ripgrep === "off" ? "walker" : "ripgrep");
    }
  }
});

/** Lines whose matching depends on what `.`, `\s`, escapes, classes and case folding mean. */
const SEMANTIC_LINES = [
  "abc",
  "a\rc",
  "abc\r",
  "a\u2028c",
  "x y",
  "x\u00a0y",
  "x\ty",
  "x\u2028y",
  "x\u000by",
  "xzy",
  "café",
  "😀x",
  "😃x",
  "ABC",
  "Ab",
  "αβγ",
  "ſ",
  "\u212A",
  "kelvin K",
  "ab12",
  "ab123",
  "    ",
  "",
  "a/b",
  "a-b",
  "a\u0008b",
  "x\fy",
  "é!",
  "xé",
  "abbc",
  "Straße",
  "STRASSE",
  "a_b é_b",
];

Deno.test("grep matches what JavaScript's RegExp matches, with its meaning of ., \\s and escapes", async () => {
  await using root = await tempDir();
  await write(`${root.path}/lines.txt`, SEMANTIC_LINES.join("\n") + "\n");
  await using host = await testHost({ roots: [root.path] });
  const cases: Array<[string, boolean]> = [
    ["a.c", false],
    ["a.c$", false],
    ["x\\sy", false],
    ["x\\Sy", false],
    ["x[\\s]y", false],
    ["x[\\S]y", false],
    ["x[^\\s]y", false],
    ["^[\\s\\S]{3}$", false],
    ["\\u00e9", false],
    ["\\u{1F600}", false],
    ["\\uD83D\\uDE00", false],
    ["[\\uD83D\\uDE00-\\uD83D\\uDE4F]x", false],
    ["^.x$", false],
    ["\\x41", false],
    ["\\p{Lu}\\p{Ll}", false],
    ["\\p{Script=Greek}", false],
    ["\\p{sc=Greek}{2}", false],
    ["^\\p{Letter}{3}$", false],
    ["\\P{L}{2}", false],
    ["(?<word>ab)c", false],
    ["(?i:AB)c", false],
    ["(?s:a.c)", false],
    ["(?i:a(?-i:B))", false],
    ["a[]?b", false],
    ["[^]x", false],
    ["\\bé", false],
    ["é\\b", false],
    ["\\Bb", false],
    ["_b\\b", false],
    ["ſ", true],
    ["k", true],
    ["\\w", true],
    ["^\\W$", true],
    ["[a-z]+\\d{2,3}$", false],
    ["^\\s*$", false],
    ["a\\/b", false],
    ["a[\\-]b", false],
    ["\\cI", false],
    ["a[\\b]b", false],
    ["x\\vy", false],
    ["x\\fy", false],
    ["x*?y", false],
    ["(ab|a)(bc|c)", false],
    ["straße", true],
    ["é", true],
    ["ABC", true],
  ];
  for (const [pattern, ignoreCase] of cases) {
    const re = new RegExp(pattern, ignoreCase ? "iu" : "u");
    const expected = SEMANTIC_LINES.flatMap((line, i) => (re.test(line) ? [i + 1] : []));
    const result = await host.call("grep", {
      pattern,
      ignore_case: ignoreCase,
      limit: 100,
    });
    assertFalse(result.isError, `${pattern}: ${textOf(result)}`);
    const matches = (result.structuredContent as { matches: Array<{ line: number }> }).matches;
    assertEquals(matches.map((m) => m.line), expected, `${pattern}${ignoreCase ? " (i)" : ""}`);
  }
});

Deno.test(
  "grep leaves out and counts the files it cannot search, and answers with the rest",
  { ignore: !canRun("rg") || !canRun("mkfifo") },
  async () => {
    await using root = await tempDir();
    await write(`${root.path}/a.txt`, "needle\n");
    await write(`${root.path}/z.txt`, "needle again\n");
    await write(`${root.path}/bin_match.dat`, new Uint8Array([...encode("needle"), 0, 1, 10]));
    await write(`${root.path}/bin_other.dat`, new Uint8Array([...encode("other"), 0, 1, 10]));
    await write(`${root.path}/big_match.txt`, `${"x".repeat(30_000)}\nneedle\n`);
    await write(`${root.path}/big_other.txt`, `${"x".repeat(30_000)}\n`);
    const made = await new Deno.Command("mkfifo", { args: [`${root.path}/fifo.txt`] }).output();
    assert(made.success, "mkfifo");
    // A name that is not UTF-8: Deno lists it with U+FFFD and then cannot open it.
    const bad = await new Deno.Command("sh", {
      args: ["-c", `printf 'needle\\n' > "$1/bad$(printf '\\377')name.txt"`, "sh", root.path],
    }).output();
    assert(bad.success, "a file with a name that is not UTF-8");
    const config = { limits: { maxSearchFileBytes: 20_000 } };
    const expected = {
      // The walker counts what a directory holds as it lists it, then each file it cannot
      // search; ripgrep searches every regular file and proposes those with a match.
      off: [
        "fifo.txt: not a regular file (a FIFO, socket or device)",
        "bad\uFFFDname.txt: name is not valid UTF-8",
        "big_match.txt: over the 19.5 KB size limit",
        "big_other.txt: over the 19.5 KB size limit",
        "bin_match.dat: binary file (unknown binary data)",
      ],
      auto: [
        "bad\uFFFDname.txt: name is not valid UTF-8",
        "big_match.txt: over the 19.5 KB size limit",
        "bin_match.dat: binary file (unknown binary data)",
      ],
    };
    for (const ripgrep of ["off", "auto"] as const) {
      await using host = await launchHost({ roots: [root.path], ripgrep, file: config });
      const result = await host.call("grep", { pattern: "needle" });
      assertFalse(result.isError, textOf(result));
      const lines = textOf(result).split("\n");
      assertEquals(lines.slice(0, -1), ["a.txt:1: needle", "", "z.txt:1: needle again"], ripgrep);
      const data = result.structuredContent as {
        engine: string;
        skipped: { count: number; first: { path: string; reason: string } };
      };
      assertEquals(data.engine, ripgrep === "off" ? "walker" : "ripgrep");
      const first = expected[ripgrep][0]!;
      assertEquals(lines.at(-1), `skipped: ${expected[ripgrep].length} (first: ${first})`);
      assertEquals(data.skipped.count, expected[ripgrep].length, ripgrep);
      assertEquals(`${data.skipped.first.path}: ${data.skipped.first.reason}`, first);
      // Each one is said when it comes first: search the files one at a time.
      for (const each of expected[ripgrep]) {
        const name = each.slice(0, each.indexOf(": "));
        const glob = name.includes("\uFFFD") ? "bad*name.txt" : name;
        const alone = await host.call("grep", { pattern: "needle", glob });
        assertEquals(textOf(alone).split("\n").at(-1), `skipped: 1 (first: ${each})`, glob);
      }
    }
  },
);

Deno.test(
  "grep's ripgrep path reads ripgrep's word for a file it could not open",
  {
    ignore: !canRun("rg") || !canRun("setpriv") ||
      missing("root (uid 0, to run ripgrep as nobody)", Deno.uid() === 0),
  },
  async () => {
    // Root reads every file, so ripgrep runs here as nobody to meet a file it may not read.
    await using root = await tempDir();
    await Deno.chmod(root.path, 0o755);
    await write(`${root.path}/locked.txt`, "needle\n");
    await Deno.chmod(`${root.path}/locked.txt`, 0o000);
    const { stderr } = await new Deno.Command("setpriv", {
      args: [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "rg",
        "--files-with-matches",
        "--no-config",
        "--regexp=needle",
        "--",
        root.path,
      ],
      stderr: "piped",
      stdout: "null",
    }).output();
    const said = new TextDecoder().decode(stderr).split("\n").filter((line) => line !== "");
    assertEquals(said.map(unreadableEntry), [
      { path: `${root.path}/locked.txt`, reason: "permission denied" },
    ]);
    assertEquals(unreadableEntry("rg: ./.gitignore: line 2: error parsing glob"), undefined);
    assertEquals(unreadableEntry("rg: /x/a: b.txt: No such file or directory (os error 2)"), {
      path: "/x/a: b.txt",
      reason: "vanished while being read",
    });
  },
);

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
