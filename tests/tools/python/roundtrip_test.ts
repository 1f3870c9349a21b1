import { assert, assertEquals } from "../../_assert.ts";
import { quickRun, tempDir, testHost, textOf } from "../../_helpers.ts";
import { python, reference, stdlibDir, withPath } from "./_stdlib.ts";

const MODULES = ["argparse.py", "dataclasses.py", "json/decoder.py", "textwrap.py", "abc.py"];

/** The file, CRLF and UTF-8-with-BOM variants of some stdlib modules. */
async function variants(root: string): Promise<string[]> {
  const stdlib = await stdlibDir();
  const names: string[] = [];
  for (const module of MODULES) {
    const text = await Deno.readTextFile(`${stdlib}/${module}`);
    const base = module.replaceAll("/", "_").replace(/\.py$/, "");
    await Deno.writeTextFile(`${root}/${base}.py`, text);
    await Deno.writeTextFile(`${root}/${base}_crlf.py`, text.replaceAll("\n", "\r\n"));
    await Deno.writeTextFile(`${root}/${base}_bom.py`, "\ufeff" + text);
    names.push(`${base}.py`, `${base}_crlf.py`, `${base}_bom.py`);
  }
  return names;
}

/** Each file's `ast.dump`, from one python3 run for them all. */
async function astDump(paths: string[]): Promise<string[]> {
  const out = await new Deno.Command((await python()).executable, {
    args: [
      "-c",
      "import ast,sys\nfor p in sys.argv[1:]: print(ast.dump(ast.parse(open(p,'rb').read())))",
      ...paths,
    ],
    stdout: "piped",
  }).output();
  assert(out.success, "python3 failed to parse a result");
  return new TextDecoder().decode(out.stdout).trimEnd().split("\n");
}

Deno.test("py edits round-trip on real code, LF, CRLF and BOM", { ignore: quickRun }, async (t) => {
  await using root = await tempDir();
  const files = await variants(root.path);
  await using host = await testHost({ roots: [root.path] });
  const original = new Map<string, Uint8Array>();
  for (const f of files) original.set(f, await Deno.readFile(`${root.path}/${f}`));
  const refs = await reference(files.map((f) => `${root.path}/${f}`));

  await t.step("CRLF and BOM files outline like Python sees them", () => {
    for (const ref of refs) assert(ref.valid, ref.path);
  });

  await t.step(
    "py_update_definition with its own text leaves the file byte-identical",
    async () => {
      let count = 0;
      for (const [i, f] of files.entries()) {
        const outline = await host.call("py_get_code_outline", { path: f });
        assertEquals(outline.structuredContent?.symbols, withPath(refs[i]!.symbols!, f), f);
        const texts = refs[i]!.texts!;
        for (const name of Object.keys(texts).slice(0, 40)) {
          const got = await host.call("py_get_definition", { path: f, name });
          if (got.isError) continue; // a duplicated name: covered elsewhere
          const put = await host.call("py_update_definition", {
            path: f,
            name,
            content: got.structuredContent!.source as string,
          });
          assertEquals(put.isError, undefined, textOf(put));
          count++;
        }
        assertEquals(await Deno.readFile(`${root.path}/${f}`), original.get(f), f);
      }
      assert(count > 300, `only ${count} updates`);
    },
  );

  await t.step("remove then add restores the file (byte-identical, or the same ast)", async () => {
    let identical = 0;
    let total = 0;
    // The cases that are not byte-identical, kept aside and compared with their originals'
    // ast at the end, all in one python3 run.
    await using aside = await tempDir();
    const differing: Array<{ got: string; want: string; message: string }> = [];
    for (const [i, f] of files.entries()) {
      const top = refs[i]!.symbols!;
      const lines = new TextDecoder().decode(original.get(f)!).split(/\r?\n/);
      const onlyGap = (from: number, to: number) =>
        lines.slice(from, to - 1).every((l) => l.trim() === "" || l.trim().startsWith("#"));
      // A top-level definition in the middle (anchored to a neighbour with nothing but
      // blank lines and comments between them), the last one, and a method.
      const picks: Array<{ name: string; anchor_type: string; anchor_symbol: string }> = [];
      for (let k = 1; k + 1 < top.length && picks.length < 2; k++) {
        const [prev, cur, next] = [top[k - 1]!, top[k]!, top[k + 1]!];
        if (onlyGap(prev.end_line, cur.start_line)) {
          picks.push({ name: cur.name, anchor_type: "after", anchor_symbol: prev.name });
        } else if (onlyGap(cur.end_line, next.start_line)) {
          picks.push({ name: cur.name, anchor_type: "before", anchor_symbol: next.name });
        }
      }
      if (top.length > 0 && onlyGap(top.at(-1)!.end_line, lines.length + 1)) {
        picks.push({ name: top.at(-1)!.name, anchor_type: "end", anchor_symbol: "" });
      }
      const cls = top.find((s) => s.kind === "class" && s.children.length >= 2);
      if (cls) {
        picks.push({
          name: `${cls.name}.${cls.children[1]!.name}`,
          anchor_type: "after",
          anchor_symbol: `${cls.name}.${cls.children[0]!.name}`,
        });
      }
      for (const pick of picks) {
        if (new Set(top.map((s) => s.name)).size !== top.length) continue;
        const got = await host.call("py_get_definition", { path: f, name: pick.name });
        if (got.isError) continue;
        const removed = await host.call("py_remove_def", { path: f, name: pick.name });
        assertEquals(removed.isError, undefined, textOf(removed));
        const gone = await host.call("py_get_definition", { path: f, name: pick.name });
        assert(textOf(gone).startsWith("not_found: "), textOf(gone));
        const added = await host.call("py_add_def", {
          path: f,
          name: pick.name,
          content: (got.structuredContent!.source as string).trim(),
          anchor_type: pick.anchor_type,
          anchor_symbol: pick.anchor_symbol,
        });
        assertEquals(added.isError, undefined, textOf(added));
        const bytes = await Deno.readFile(`${root.path}/${f}`);
        const now = new TextDecoder().decode(bytes);
        const diff = firstDiff(now, new TextDecoder().decode(original.get(f)!));
        if (diff === "") identical++;
        else {
          // Comments above a definition are not part of it (they stay where they were), and
          // blank lines around the re-added definition follow PEP 8 even where the file did not.
          const want = `${aside.path}/original_${f}`;
          await Deno.writeFile(want, original.get(f)!);
          const got = `${aside.path}/${differing.length}_${f}`;
          await Deno.writeFile(got, bytes);
          differing.push({ got, want, message: `${f} ${pick.name}: ${diff}` });
          await Deno.writeFile(`${root.path}/${f}`, original.get(f)!);
          await host.call("py_check_syntax", { path: f }); // read it again (stale-read protection)
        }
        total++;
      }
    }
    const dumps = await astDump(differing.flatMap((each) => [each.got, each.want]));
    for (const [k, each] of differing.entries()) {
      assertEquals(dumps[2 * k], dumps[2 * k + 1], each.message);
    }
    assert(total >= 30, `only ${total} round trips`);
    // Every case above is at least the same AST (the acceptance). Byte identity is the common case but
    // not the rule (PEP 8 spacing, comments left in place); full-suite runs have measured 27-30 of 57.
    assert(identical >= total * 0.4, `only ${identical} of ${total} byte-identical`);
  });

  await t.step(
    "py_move_def between files leaves both parseable, keeping each file's line endings",
    async () => {
      const moves = [
        {
          src: "argparse_crlf.py",
          dest: "textwrap.py",
          name: "HelpFormatter._Section",
          anchor_type: "end",
          anchor_symbol: "TextWrapper",
        },
        {
          src: "dataclasses.py",
          dest: "abc_bom.py",
          name: "fields",
          anchor_type: "start",
          anchor_symbol: "",
        },
        {
          src: "json_decoder_bom.py",
          dest: "argparse_crlf.py",
          name: "JSONDecoder.raw_decode",
          anchor_type: "before",
          anchor_symbol: "Namespace",
        },
        {
          src: "abc.py",
          dest: "dataclasses_crlf.py",
          name: "ABC",
          anchor_type: "after",
          anchor_symbol: "Field.__repr__",
        },
      ];
      for (const move of moves) {
        const before = textOf(
          await host.call("py_get_definition", { path: move.src, name: move.name }),
        );
        const result = await host.call("py_move_def", {
          source: move.src,
          destination: move.dest,
          name: move.name,
          anchor_type: move.anchor_type,
          anchor_symbol: move.anchor_symbol,
        });
        assertEquals(result.isError, undefined, textOf(result));
        for (const f of [move.src, move.dest]) {
          const check = await host.call("py_check_syntax", { path: f });
          assertEquals(check.structuredContent?.valid, true, `${f}: ${textOf(check)}`);
          const bytes = await Deno.readFile(`${root.path}/${f}`);
          const text = new TextDecoder().decode(bytes);
          if (f.includes("_crlf")) assert(!/[^\r]\n/.test(text), `${f} gained a bare LF`);
          else assert(!text.includes("\r"), `${f} gained a CR`);
          assertEquals(bytes[0] === 0xef, f.includes("_bom"), `${f} BOM`);
        }
        // Where it landed: in the anchor's class (start/end of a class, beside a method) or at the top.
        const last = move.name.split(".").pop()!;
        const inside = ["start", "end"].includes(move.anchor_type)
          ? move.anchor_symbol
          : move.anchor_symbol.split(".").slice(0, -1).join(".");
        const name = inside ? `${inside}.${last}` : last;
        const moved = await host.call("find_usages", { path: move.dest, name, scope: move.dest });
        assert(textOf(moved).includes("[definition]"), textOf(moved));
        assert(before.length > 0);
      }
      const dumps = await astDump(files.map((f) => `${root.path}/${f}`));
      assertEquals(dumps.length, files.length);
    },
  );
});

/** Where two texts first differ, with the lines around it; empty when equal. */
function firstDiff(a: string, b: string): string {
  if (a === b) return "";
  const al = a.split("\n");
  const bl = b.split("\n");
  const at = al.findIndex((l, i) => l !== bl[i]);
  const line = at < 0 ? al.length : at;
  return `line ${line + 1}: got ${JSON.stringify(al.slice(line - 2, line + 3))}, want ${
    JSON.stringify(bl.slice(line - 2, line + 3))
  }`;
}
