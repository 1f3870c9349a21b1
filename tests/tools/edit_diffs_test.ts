/**
 * Every tool that changes a file answers with a unified diff that, applied
 * to the file as it was, gives the file as it is (decoded text, byte for byte:
 * LF, CRLF, no final newline, Latin-1).
 */

import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { assert, assertEquals, assertFalse, assertMatch } from "../_assert.ts";
import { tempDir, textOf } from "../_helpers.ts";
import { launchHost } from "../_mcp.ts";
import { decodeText } from "../../tools/_text.ts";
import type { ToolResult } from "../../tools/tool.ts";

const PY = `"""Module."""
import os

LIMIT = 3


def helper(x):
    return x + 1


class Box:
    size = 1

    def grow(self, n):
        return self.size + n

    def shrink(self, n):
        return self.size - n


def main():
    print(helper(LIMIT), os.sep)
`;

const C =
  '#include <stdio.h>\n\nint area(int w, int h) {\n  return w * h;\n}\n\nint main(void) {\n  printf("%d\\n", area(2, 3));\n  return 0;\n}\n';

const CPP =
  "namespace geo {\nclass Shape {\n public:\n  int area() const { return 0; }\n};\n}  // namespace geo\n\nint twice(int x) {\n  return 2 * x;\n}\n";

const TS =
  "export class Client {\n  call(name: string): string {\n    return name;\n  }\n}\n\nexport function make(): Client {\n  return new Client();\n}\n";

const FILES: Record<string, string | Uint8Array> = {
  "notes.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
  "crlf.txt": "alpha\r\nbeta\r\ngamma\r\ndelta\r\n",
  "tail.txt": "first\nsecond\nlast line without newline",
  "latin.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]),
  "blob.bin": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]),
  "m.py": PY,
  "w.py": "def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2",
  "other.py": "import os\n\n\ndef other():\n    return os.sep\n",
  "geo.c": C,
  "geo.cpp": CPP,
  "app.ts": TS,
  "lib.py": 'def scale(x):\n    """scale a value"""\n    return x * 2\n',
  "use.py": "from lib import scale\n\n# scale twice\nprint(scale(scale(3)), 'scale')\n",
};

/** One call of an editing tool, and the files it changes. */
interface Case {
  tool: string;
  args: Record<string, unknown>;
  files: string[];
}

const CASES: Case[] = [
  {
    tool: "edit_file",
    args: { path: "notes.txt", old_string: "three", new_string: "THREE\n3" },
    files: ["notes.txt"],
  },
  {
    tool: "edit_file",
    args: { path: "notes.txt", old_string: "e", new_string: "E", replace_all: true },
    files: ["notes.txt"],
  },
  {
    tool: "edit_file",
    args: { path: "crlf.txt", old_string: "beta\ngamma", new_string: "b\ng\nh" },
    files: ["crlf.txt"],
  },
  {
    tool: "edit_file",
    args: { path: "tail.txt", old_string: "without", new_string: "still without" },
    files: ["tail.txt"],
  },
  {
    tool: "edit_file",
    args: { path: "latin.txt", old_string: "x", new_string: "y\nz" },
    files: ["latin.txt"],
  },
  {
    tool: "set_file_slice",
    args: { path: "crlf.txt", start_line: 2, end_line: 3, content: "x\ny" },
    files: ["crlf.txt"],
  },
  {
    tool: "set_file_slice",
    args: { path: "tail.txt", start_line: 4, end_line: 3, content: "appended" },
    files: ["tail.txt"],
  },
  {
    tool: "set_file_slice",
    args: { path: "notes.txt", start_line: 1, end_line: 0, content: "zero\n" },
    files: ["notes.txt"],
  },
  { tool: "write_file", args: { path: "new.txt", content: "hello\nworld" }, files: ["new.txt"] },
  { tool: "write_file", args: { path: "notes.txt", content: "short\n" }, files: ["notes.txt"] },
  {
    tool: "write_file",
    args: { path: "crlf.txt", content: "alpha\r\nBETA\r\n" },
    files: ["crlf.txt"],
  },
  {
    tool: "write_file",
    args: { path: "deep/er/x.txt", content: "x\n", create_parents: true },
    files: ["deep/er/x.txt"],
  },
  {
    tool: "py_update_definition",
    args: { path: "m.py", name: "helper", content: "def helper(x):\n    return x + 2\n" },
    files: ["m.py"],
  },
  {
    tool: "py_set_signature",
    args: { path: "m.py", name: "Box.grow", content: "def grow(self, n: int = 1) -> int:" },
    files: ["m.py"],
  },
  {
    tool: "py_set_var_declaration",
    args: { path: "m.py", name: "LIMIT", content: "LIMIT = 4" },
    files: ["m.py"],
  },
  {
    tool: "py_add_def",
    args: {
      path: "m.py",
      name: "Box.reset",
      content: "def reset(self):\n    self.size = 1",
      anchor_type: "end",
      anchor_symbol: "Box",
    },
    files: ["m.py"],
  },
  {
    tool: "py_region_wrap",
    args: { path: "m.py", start_line: 2, end_line: 2, region_name: "imports" },
    files: ["m.py"],
  },
  {
    tool: "py_move_def",
    args: { source: "m.py", destination: "m.py", name: "Box.shrink", destination_name: "shrink" },
    files: ["m.py"],
  },
  {
    tool: "py_move_def",
    args: { source: "m.py", destination: "other.py", name: "main" },
    files: ["m.py", "other.py"],
  },
  { tool: "py_remove_def", args: { path: "m.py", name: "Box.reset" }, files: ["m.py"] },
  {
    tool: "py_update_definition",
    args: { path: "w.py", name: "g", content: "def g():\n    return 20" },
    files: ["w.py"],
  },
  {
    tool: "ts_c_update_definition",
    args: {
      path: "geo.c",
      name: "area",
      content: "int area(int w, int h) {\n  return w * h * 1;\n}\n",
    },
    files: ["geo.c"],
  },
  {
    tool: "ts_cpp_update_definition",
    args: {
      path: "geo.cpp",
      name: "twice",
      content: "int twice(int x) {\n  return x + x;\n}\n",
    },
    files: ["geo.cpp"],
  },
  {
    tool: "ts_js_update_definition",
    args: {
      path: "app.ts",
      name: "Client.call",
      content: "  call(name: string): string {\n    return `called ${name}`;\n  }\n",
    },
    files: ["app.ts"],
  },
  {
    tool: "rename_symbol",
    args: { path: "lib.py", name: "scale", new_name: "stretch" },
    files: ["lib.py", "use.py"],
  },
];

/** Tools that write but change no file's content. */
/**
 * Tools that change things but not a file's content through an edit: moves, directories, the todo
 * list, and programs (run_shell, bd: what a program changes is its own doing; its answer is its
 * output).
 */
const NOT_CONTENT = new Set([
  "move_file",
  "create_directory",
  "todo_write",
  "run_shell",
  "bd_create",
  "bd_update",
]);

async function decoded(root: string, path: string): Promise<string> {
  try {
    return decodeText(await Deno.readFile(`${root}/${path}`), path).text;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}

/**
 * The files a diff does not turn from `before` into `after`, each with why;
 * empty when the diff is right.
 */
function misapplied(
  diff: string,
  before: Record<string, string>,
  after: Record<string, string>,
): string[] {
  const patches: StructuredPatch[] = parsePatch(diff);
  const wrong: string[] = [];
  const named = new Set<string>();
  for (const patch of patches) {
    if (patch.newFileName === undefined && patch.hunks.length === 0) continue; // an empty diff
    const path = (patch.newFileName ?? "").replace(/^b\//, "");
    named.add(path);
    if (!(path in before)) {
      wrong.push(`${path}: not a file the call changed`);
      continue;
    }
    const got = applyPatch(before[path]!, patch);
    if (got !== after[path]) wrong.push(`${path}: gives ${JSON.stringify(got)}`);
  }
  for (const path of Object.keys(before)) {
    if (before[path] !== after[path] && !named.has(path)) wrong.push(`${path}: not in the diff`);
  }
  return wrong;
}

/** Lines a diff adds and removes. */
function counted(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const patch of parsePatch(diff)) {
    for (const line of patch.hunks.flatMap((hunk) => hunk.lines)) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

function diffOf(result: ToolResult): string {
  const diff = result.structuredContent?.diff;
  assert(typeof diff === "string", `no diff in ${JSON.stringify(result.structuredContent)}`);
  return diff;
}

Deno.test("every editing tool answers with a diff that turns the old file into the new one", async (t) => {
  await using root = await tempDir();
  for (const [path, content] of Object.entries(FILES)) {
    if (typeof content === "string") await Deno.writeTextFile(`${root.path}/${path}`, content);
    else await Deno.writeFile(`${root.path}/${path}`, content);
  }
  await using host = await launchHost({ roots: [root.path] });

  await t.step("the cases cover every tool that writes file content", () => {
    const writers = host.list()
      .filter((tool) => tool.annotations?.readOnlyHint !== true && !NOT_CONTENT.has(tool.name))
      .map((tool) => tool.name);
    const covered = new Set(CASES.map((each) => each.tool));
    assertEquals(writers.filter((name) => !covered.has(name)), [], "add a case for each");
  });

  for (const [i, each] of CASES.entries()) {
    await t.step(`${i + 1}. ${each.tool} ${JSON.stringify(each.args).slice(0, 80)}`, async () => {
      const before: Record<string, string> = {};
      for (const path of each.files) before[path] = await decoded(root.path, path);
      const result = await host.call(each.tool, each.args);
      assertEquals(result.isError, undefined, textOf(result));
      const after: Record<string, string> = {};
      for (const path of each.files) after[path] = await decoded(root.path, path);
      for (const path of each.files) assert(before[path] !== after[path], `${path} changed`);
      const diff = diffOf(result);
      assertEquals(misapplied(diff, before, after), []);
      assertEquals(result.structuredContent?.truncated, false);
      const { added, removed } = counted(diff);
      assertEquals(result.structuredContent?.added, added);
      assertEquals(result.structuredContent?.removed, removed);
      // The first text block: one summary line, then the diff (notes such as the sites a rename
      // left come in blocks of their own after it).
      const first = result.content.find((block) => block.type === "text");
      const text = first?.type === "text" ? first.text : "";
      assert(text.endsWith(`\n${diff}`), `the text shows the diff after one summary line: ${text}`);
      assertFalse(text.slice(0, text.length - diff.length - 1).includes("\n"));
    });
  }

  await t.step("a wrong diff is caught", async () => {
    const before = { "notes.txt": await decoded(root.path, "notes.txt") };
    const result = await host.call("edit_file", {
      path: "notes.txt",
      old_string: "short",
      new_string: "longer",
    });
    const after = { "notes.txt": await decoded(root.path, "notes.txt") };
    const diff = diffOf(result);
    assertEquals(misapplied(diff, before, after), []);
    assertEquals(misapplied(diff.replace("+longer", "+longest"), before, after).length, 1);
    assertEquals(misapplied(diff, after, after).length, 1, "applied to the wrong text");
    assertEquals(misapplied("", before, after), ["notes.txt: not in the diff"]);
  });
});

Deno.test("write_file over a binary file says why there is no diff; a long diff is cut at a hunk", async () => {
  await using root = await tempDir();
  await Deno.writeFile(`${root.path}/blob.bin`, FILES["blob.bin"] as Uint8Array);
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(20)}\n`);
  await Deno.writeTextFile(`${root.path}/big.txt`, lines.join(""));
  await using host = await launchHost({ roots: [root.path] });

  const binary = await host.call("write_file", { path: "blob.bin", content: "text now\n" });
  assertEquals(binary.isError, undefined, textOf(binary));
  assertMatch(textOf(binary), /\n\(no diff for blob\.bin: the old content was binary\)\n$/);
  assertEquals(binary.structuredContent?.truncated, true);

  // Every tenth line changes: 300 hunks, far more than the bound shows.
  const changed = lines.map((line, i) => (i % 10 === 0 ? line.toUpperCase() : line)).join("");
  const big = await host.call("write_file", { path: "big.txt", content: changed });
  const diff = diffOf(big);
  assertEquals(big.structuredContent?.truncated, true);
  assert(diff.length <= 8_200, `a diff of ${diff.length} characters`);
  assertMatch(
    diff,
    /\n… diff cut at 8000 characters: \d+ more hunks; read the file to see the rest\n$/,
  );
  assertEquals(big.structuredContent?.added, 300);
  assertEquals(big.structuredContent?.removed, 300);
  // What is shown is whole hunks that apply to the start of the file.
  const shown = diff.slice(0, diff.lastIndexOf("\n…"));
  const partial = applyPatch(lines.join(""), shown);
  assert(typeof partial === "string" && partial.startsWith(changed.slice(0, 200)));
});
