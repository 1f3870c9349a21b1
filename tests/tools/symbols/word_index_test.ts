/**
 * The symbol index's parts on their own: which words a Python file keeps
 * (code, f-strings, name-valued strings; not prose), the word index kept by
 * version and read back from its file (and a damaged file never half-used),
 * and the facts kept on disk between runs.
 */

import { assert, assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { refsNamed } from "../../../tools/python/_resolve_facts.ts";
import { PY_FACTS_CODEC } from "../../../tools/python/_facts_codec.ts";
import { PyIndex } from "../../../tools/python/_resolve_index.ts";
import { pythonWords } from "../../../tools/python/_words.ts";
import { FactsStore, type StoredSections } from "../../../tools/symbols/_facts_store.ts";
import { plainFacts } from "../python/_plain_facts.ts";
import { WordIndex, wordIndex, wordsOf } from "../../../tools/symbols/_word_index.ts";
import { WORD_INDEX_FILE } from "../../../tools/symbols/state_names.ts";
import { isOwnStateDir } from "../../../security/state_marker.ts";
import { trustStateDir } from "../../../host/state/state_dir.ts";

Deno.test("a Python file keeps the words a site could be: code, f-strings, names in strings", async (t) => {
  const cases: Array<[string, string, string[]]> = [
    ["code and a comment", "x = get(y)  # a Message\n", ["x", "get", "y"]],
    ["a docstring", '"""A Message."""\nz = 1\n', ["z", "1"]],
    ["a long string over lines", "s = '''one\nMessage'''\nt = 2\n", ["s", "t", "2"]],
    ["an f-string's fields", "f'{Message.x}!'\n", ["f", "Message", "x"]],
    ["a name-valued string", '__all__ = ["Message", "email.parser"]\n', [
      "__all__",
      "Message",
      "email",
      "parser",
    ]],
    ["an escaped quote", "a = 'it\\'s Message' + b\n", ["a", "b"]],
    ["a raw bytes prefix", "c = rb'Message here' + d\n", ["c", "rb", "d"]],
    ["letters that are no prefix", 'xyz"Message"\n', ["xyz", "Message"]],
    ["an unterminated string ends at its line", "e = 'open it\nMessage = 1\n", [
      "e",
      "Message",
      "1",
    ]],
    ["a hash inside a string is no comment", "g = '#' + Message\n", ["g", "Message"]],
  ];
  for (const [what, text, words] of cases) {
    await t.step(what, () => assertEquals(pythonWords(text).sort(), [...words].sort()));
  }
  await t.step("a name's words split where `$` is", () => {
    assertEquals(wordsOf("core.$ZodType"), ["core", "ZodType"]);
  });
});

Deno.test("the word index keeps each file's words by version, and reads its file back", async (t) => {
  await using dir = await tempDir();
  const file = `${dir.path}/words.bin`;

  await t.step("a file holds a name when it holds every word of it", () => {
    const index = new WordIndex(file);
    index.put("/p/a.py", 1, 10, ["Message", "get"]);
    index.put("/p/b.py", 1, 10, ["ZodType", "core"]);
    const a = index.get("/p/a.py", 1, 10)!;
    const b = index.get("/p/b.py", 1, 10)!;
    assert(index.matcher(["Message"])(a) && !index.matcher(["Message"])(b));
    assert(index.matcher(["$ZodType"])(b), "$ZodType is the word ZodType");
    assert(index.matcher(["nothing", "get"])(a), "one of the names is enough");
    assert(!index.matcher(["never"])(a) && !index.matcher([])(a));
    assertEquals(index.get("/p/a.py", 2, 10), undefined, "another mtime is another version");
    assertEquals(index.get("/p/a.py", 1, 11), undefined, "another size too");
    assertEquals(index.save(), "saved");
    assertEquals(index.save(), "unchanged");
  });

  await t.step("a new instance reads the same answers back from the file", () => {
    const index = new WordIndex(file);
    assertEquals(index.size, 2);
    assert(index.matcher(["Message"])(index.get("/p/a.py", 1, 10)!));
    assert(!index.matcher(["Message"])(index.get("/p/b.py", 1, 10)!));
    // A new word after the read: ids go on from the file's.
    index.put("/p/c.py", 1, 1, ["get", "fresh"]);
    assert(index.matcher(["fresh"])(index.get("/p/c.py", 1, 1)!));
    assert(!index.matcher(["fresh"])(index.get("/p/a.py", 1, 10)!));
  });

  await t.step("files gone from a directory's walk are forgotten", () => {
    const index = new WordIndex(file);
    index.put("/p/c.ts", 1, 1, ["x"]);
    index.prune("/p", new Set(["/p/a.py"]), (name) => name.endsWith(".py"));
    assertEquals(index.size, 2, "a.py, and c.ts: the walk did not look for it");
    assertEquals(index.get("/p/b.py", 1, 10), undefined);
  });

  await t.step("a damaged file is never half-used: the index starts empty", async () => {
    const good = await Deno.readFile(file);
    const damaged: Array<[string, Uint8Array]> = [
      ["cut short", good.slice(0, good.length - 4)],
      ["another magic", new Uint8Array([0x78, ...good.slice(1)])],
      ["ids out of order", swapLastIds(good)],
    ];
    for (const [what, bytes] of damaged) {
      await Deno.writeFile(file, bytes);
      assertEquals(new WordIndex(file).size, 0, what);
    }
  });

  await t.step("a save that cannot write leaves the index in memory as it was", () => {
    const index = new WordIndex(`${dir.path}/missing/words.bin`);
    index.put("/p/a.py", 1, 1, ["x"]);
    assertEquals(index.save(), "failed");
    assert(index.matcher(["x"])(index.get("/p/a.py", 1, 1)!));
  });
});

Deno.test("facts kept on disk are read back by version, within a budget", async (t) => {
  await using dir = await tempDir();
  const ctx = await toolContext(dir.path);
  const source = "def f(x):\n    return x\n\n\ny = f(1)\n";

  await t.step("a new index reads a file's facts back instead of parsing it", async () => {
    const store = new FactsStore(`${dir.path}/facts`, "python", PY_FACTS_CODEC);
    const first = new PyIndex(undefined, store);
    await first.ready(ctx);
    first.add("/p/a.py", 7, source.length, source);
    const second = new PyIndex(undefined, store);
    await second.ready(ctx);
    const facts = second.cached("/p/a.py", 7, source.length);
    assert(facts, "read back");
    assertEquals(refsNamed(facts, "f").map((ref) => ref.role), ["def", "call"]);
    const made = first.cached("/p/a.py", 7, source.length)!;
    assertEquals(plainFacts(facts), plainFacts(made), "the same facts, maps and all");
    assertEquals(second.cached("/p/a.py", 8, source.length), undefined, "another version");
  });

  await t.step("past the budget, the oldest records go", () => {
    const plain = {
      write: (text: string) => ({ text, sections: {} }),
      read: (stored: StoredSections) => stored.text(),
    };
    const store = new FactsStore<string>(`${dir.path}/small`, "python", plain, 3_000);
    for (let i = 0; i < 5; i++) store.save(`/p/${i}.py`, 1, 1, "x".repeat(1_000));
    assertEquals(store.load("/p/0.py", 1, 1), undefined);
    assertEquals(store.load("/p/4.py", 1, 1), "x".repeat(1_000));
    let bytes = 0;
    for (const entry of Deno.readDirSync(`${dir.path}/small`)) {
      bytes += Deno.statSync(`${dir.path}/small/${entry.name}`).size;
    }
    assert(bytes <= 3_000, `${bytes} bytes kept`);
  });
});

Deno.test("the word index on disk is read only from a state directory the host made its own", async () => {
  await using root = await tempDir();
  const stateDir = `${root.path}/.toolhost`;
  await Deno.mkdir(stateDir);
  // A shipped index: it says a.py holds no word at all.
  const shipped = new WordIndex(`${stateDir}/${WORD_INDEX_FILE}`);
  shipped.put(`${root.path}/a.py`, 1, 1, []);
  assertEquals(shipped.save(), "saved");
  assert(!isOwnStateDir(stateDir));
  assertEquals(wordIndex(await toolContext(root.path)).size, 0, "not read: no marker names it");
  // The host makes the directory its own (the shipped index is set aside), then keeps its own there.
  assert(await trustStateDir(stateDir, { logger: { log: () => {} } }));
  assert(isOwnStateDir(stateDir));
  const own = new WordIndex(`${stateDir}/${WORD_INDEX_FILE}`);
  own.put(`${root.path}/b.py`, 1, 1, ["b"]);
  assertEquals(own.save(), "saved");
  assertEquals(wordIndex(await toolContext(root.path)).size, 1, "read back");
});

/** A copy of an index file whose last two word ids are swapped (out of order). */
function swapLastIds(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const last = copy.length - 4;
  const a = view.getUint32(last - 4, true);
  view.setUint32(last - 4, view.getUint32(last, true), true);
  view.setUint32(last, a, true);
  return copy;
}
