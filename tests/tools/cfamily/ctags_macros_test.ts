/**
 * Declarations wrapped in macros, on three macro-heavy real headers:
 * zlib.h (`ZEXTERN int ZEXPORT deflate OF((…));`), bzlib.h
 * (`BZ_EXTERN int BZ_API(BZ2_bzCompressInit) (…);`) and glibc's string.h
 * (`… __THROW __nonnull ((1, 2));`, `extern "C++"`, `__REDIRECT_NTH`).
 *
 * What is compared: the function prototypes and definitions of each header,
 * as the served host's `ts_c_get_code_outline` lists them (kinds prototype
 * and function) and as Universal Ctags does (`--kinds-C=+p`, kinds prototype
 * and function): per name, how many, and each ctags line inside one of our
 * same-named ranges. Ctags is run twice: told how the header's own macros
 * expand (`-D`, copied from the headers' `#define`s), it must agree exactly;
 * as it runs by default, it differs only where it cannot expand a macro,
 * and each such difference is listed below as ctags' mistake.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, missing, tempDir } from "../../_helpers.ts";
import { connectStdio, resultText, type StdioSession } from "../../_mcp.ts";

/** A function or prototype: its name and where it is (ctags: one line). */
interface Decl {
  name: string;
  start: number;
  end: number;
}

interface Header {
  /** Where the header is, and the Debian package `.ci/run` installs it from. */
  path: string;
  package: string;
  /** The header's own macro definitions, for ctags (it does not read `#include`d files). */
  defines: string[];
  /**
   * What ctags, run without `defines`, lists in place of ours: from our
   * list and the header's text, the declarations it gets wrong (`[ours, ctags']`).
   */
  mistakes(ours: Decl[], text: string): [Decl[], Decl[]];
  /** How many of ours that is. */
  mistaken: number;
}

const HEADERS: Header[] = [
  {
    path: "/usr/include/zlib.h",
    package: "zlib1g-dev",
    // zconf.h: `#define OF(args) args` — ctags reads `name OF((…))` right without it.
    defines: [],
    mistakes: () => [[], []],
    mistaken: 0,
  },
  {
    path: "/usr/include/bzlib.h",
    package: "libbz2-dev",
    // bzlib.h: `#define BZ_API(func) func` (the branch for all but Windows).
    defines: ["BZ_API(func)=func"],
    // Ctags names every `BZ_EXTERN int BZ_API(BZ2_x) (…);` after the macro: `BZ_API`.
    mistakes: (ours) => {
      const wrapped = ours.filter((decl) => decl.name.startsWith("BZ2_"));
      return [wrapped, wrapped.map((decl) => ({ ...decl, name: "BZ_API" }))];
    },
    mistaken: 24,
  },
  {
    path: "/usr/include/string.h",
    package: "libc6-dev",
    // sys/cdefs.h: `#define __REDIRECT_NTH(name, proto, alias) name proto __THROW __asm__ (…)`.
    defines: ["__REDIRECT_NTH(name,proto,alias)=name proto"],
    // Ctags lists nothing for `extern int __REDIRECT_NTH (strerror_r, (…), __xpg_strerror_r)`,
    // a declaration of strerror_r.
    mistakes: (ours, text) => {
      const line = text.split("\n").findIndex((l) => /__REDIRECT_NTH \(strerror_r,/.test(l)) + 1;
      return [ours.filter((decl) => decl.name === "strerror_r" && decl.start === line), []];
    },
    mistaken: 1,
  },
];

/** Under CI the headers must be there (`.ci/run` installs them); elsewhere a missing one skips. */
function headersPresent(): boolean {
  const present = HEADERS.every((header) => {
    try {
      return Deno.statSync(header.path).isFile;
    } catch {
      return false;
    }
  });
  return !missing("zlib.h, bzlib.h or string.h (zlib1g-dev, libbz2-dev, libc6-dev)", present);
}

/** Ctags' function prototypes and definitions of a C file. */
async function ctagsDecls(path: string, defines: readonly string[]): Promise<Decl[]> {
  const output = await new Deno.Command("ctags", {
    args: [
      "--output-format=json",
      "--fields=+n",
      "--language-force=C",
      "--kinds-C=+p",
      ...defines.flatMap((define) => ["-D", define]),
      "-o",
      "-",
      path,
    ],
  }).output();
  assert(output.success, "ctags runs (Debian package universal-ctags)");
  return new TextDecoder().decode(output.stdout).split("\n").filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((tag) => tag.kind === "prototype" || tag.kind === "function")
    .map((tag) => ({ name: tag.name, start: tag.line, end: tag.line }));
}

interface Outline {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  children: Outline[];
}

/** Our function prototypes and definitions of a file, from the served outline. */
async function ourDecls(host: StdioSession, path: string): Promise<Decl[]> {
  const result = await host.call("ts_c_get_code_outline", { path });
  assertFalse(result.isError, resultText(result));
  const flat = (list: Outline[]): Outline[] => list.flatMap((s) => [s, ...flat(s.children)]);
  return flat((result.structuredContent as { symbols: Outline[] }).symbols)
    .filter((s) => s.kind === "prototype" || s.kind === "function")
    .map((s) => ({ name: s.name, start: s.start_line, end: s.end_line }));
}

/**
 * How two lists disagree: per name, counts that differ, and ctags lines
 * not inside one of our same-named ranges (each range used once).
 */
function disagreements(ours: readonly Decl[], theirs: readonly Decl[]): string[] {
  const byName = (list: readonly Decl[]) =>
    Map.groupBy([...list].sort((a, b) => a.start - b.start), (decl) => decl.name);
  const mine = byName(ours);
  const tags = byName(theirs);
  const out: string[] = [];
  for (const name of new Set([...mine.keys(), ...tags.keys()])) {
    const a = mine.get(name) ?? [];
    const b = tags.get(name) ?? [];
    if (a.length !== b.length) {
      out.push(`${name}: ours at ${a.map((d) => d.start)}, ctags at ${b.map((d) => d.start)}`);
      continue;
    }
    b.forEach((tag, i) => {
      if (tag.start < a[i]!.start || tag.start > a[i]!.end) {
        out.push(`${name}: ctags line ${tag.start} is not in ours ${a[i]!.start}-${a[i]!.end}`);
      }
    });
  }
  return out;
}

/** `ours` without the declarations in `drop` (same name and start). */
function without(ours: readonly Decl[], drop: readonly Decl[]): Decl[] {
  return ours.filter((decl) => !drop.some((d) => d.name === decl.name && d.start === decl.start));
}

const SHAPES = [
  "int WRAP_API(wrapped_proto) (int x);",
  "int WRAP_API(wrapped_def)(void) { return 0; }",
  "__declspec(dllexport) int declspec_proto(void);",
  "_GL_ATTRIBUTE_PURE int gnulib_proto (char const *s);",
  "int attributes_after(void) __wur __attribute_pure__;",
  "FOO_API const char *export_macro(int);",
  "LIBX_EXPORT void with_attribute(void) __attribute__((deprecated));",
  "__BEGIN_DECLS",
  "extern int glibc_proto (int __fd) __THROW __wur __nonnull ((1));",
  "__END_DECLS",
  "static __inline__ int inline_def(int x) { return x; }",
  'extern "C++" int linkage_proto(int);',
  "ZEXTERN int ZEXPORT of_proto OF((int a, char FAR *b));",
  "extern int __REDIRECT (redirected, (int __fd), redirected64) __wur;",
  "BZ_EXTERN BZFILE* BZ_API(bz_proto) (int* err, FILE* f);",
  "",
].join("\n");

Deno.test(
  "C declarations wrapped in macros agree with Universal Ctags on zlib.h, bzlib.h and string.h",
  {
    ignore: !canRun("ctags") || !headersPresent(),
  },
  async (t) => {
    await using root = await tempDir();
    for (const header of HEADERS) {
      const name = header.path.split("/").at(-1)!;
      try {
        await Deno.copyFile(header.path, `${root.path}/${name}`);
      } catch (error) {
        throw new Error(`${header.path} is missing: install Debian's ${header.package}`, {
          cause: error,
        });
      }
    }
    await Deno.writeTextFile(`${root.path}/shapes.c`, SHAPES);
    await using host = await connectStdio([root.path]);

    for (const header of HEADERS) {
      const name = header.path.split("/").at(-1)!;
      await t.step(`${name}: the names and lines ctags gives when told the macros`, async () => {
        const ours = await ourDecls(host, name);
        assert(ours.length >= 20, `${name}: ${ours.length} declarations`);
        const told = await ctagsDecls(header.path, header.defines);
        assertEquals(disagreements(ours, told), []);
      });
      await t.step(`${name}: plain ctags differs only where it cannot expand a macro`, async () => {
        const ours = await ourDecls(host, name);
        const [mine, theirs] = header.mistakes(ours, Deno.readTextFileSync(header.path));
        assertEquals(mine.length, header.mistaken);
        const plain = await ctagsDecls(header.path, []);
        const rest = plain.filter((tag) =>
          !theirs.some((t) => t.name === tag.name && t.start === tag.start)
        );
        assertEquals(
          rest.length,
          plain.length - theirs.length,
          "each documented mistake is ctags'",
        );
        assertEquals(disagreements(without(ours, mine), rest), []);
      });
    }

    await t.step("zlib.h has its 99 declarations, none named after a macro", async () => {
      const ours = await ourDecls(host, "zlib.h");
      assertEquals(ours.length, 99);
      assertEquals(ours.filter((decl) => /^(OF|ZEXTERN|ZEXPORT)$/.test(decl.name)), []);
    });

    await t.step("signatures and definitions read the declaration as written", async () => {
      const deflate = resultText(
        await host.call("ts_c_get_signature", { path: "zlib.h", name: "deflate" }),
      );
      assertMatch(
        deflate,
        /^zlib\.h:\d+ ZEXTERN int ZEXPORT deflate OF\(\(z_streamp strm, int flush\)\)$/,
      );
      const bz = await host.call("ts_c_get_definition", {
        path: "bzlib.h",
        name: "BZ2_bzCompressInit",
      });
      const source = (bz.structuredContent as { source: string }).source;
      assertMatch(
        source,
        /^BZ_EXTERN int BZ_API\(BZ2_bzCompressInit\) \( \n[^;]*workFactor \n {3}\);\n$/,
      );
      const memcpy = resultText(
        await host.call("ts_c_get_signature", { path: "string.h", name: "memcpy" }),
      );
      assertMatch(
        memcpy,
        /^string\.h:\d+ extern void \*memcpy \(void \*__restrict __dest,[^]*__THROW __nonnull \(\(1, 2\)\)$/,
      );
    });

    await t.step("each wrapping shape names the real function", async () => {
      const names = (await ourDecls(host, "shapes.c")).map((decl) => decl.name);
      assertEquals(names, [
        "wrapped_proto",
        "wrapped_def",
        "declspec_proto",
        "gnulib_proto",
        "attributes_after",
        "export_macro",
        "with_attribute",
        "glibc_proto",
        "inline_def",
        "linkage_proto",
        "of_proto",
        "redirected",
        "bz_proto",
      ]);
      const skeleton = resultText(await host.call("ts_c_get_skeleton", { path: "shapes.c" }));
      assertMatch(skeleton, /^int WRAP_API\(wrapped_def\)\(void\) \{ \.\.\. .*\}$/m);
      const signature = resultText(
        await host.call("ts_c_get_signature", { path: "shapes.c", name: "of_proto" }),
      );
      assertEquals(signature, "shapes.c:13 ZEXTERN int ZEXPORT of_proto OF((int a, char FAR *b))");
    });
  },
);
