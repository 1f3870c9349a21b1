import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";

const enc = new TextEncoder();

Deno.test("get_file_slice and set_file_slice", async (t) => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });
  const file = `${root.path}/a.txt`;
  await Deno.writeTextFile(file, "one\ntwo\nthree\nfour\n");

  await t.step("a slice is the exact lines, 1-based and inclusive", async () => {
    const result = await host.call("get_file_slice", { path: "a.txt", start_line: 2, end_line: 3 });
    assertEquals(result.structuredContent?.content, "two\nthree\n");
    assertEquals(result.structuredContent?.total_lines, 4);
    assertStringIncludes(textOf(result), "lines 2-3 of 4");
  });

  await t.step(
    "end_line past the end stops at the last line; start past the end is an error",
    async () => {
      const result = await host.call("get_file_slice", {
        path: "a.txt",
        start_line: 3,
        end_line: 99,
      });
      assertEquals(result.structuredContent?.content, "three\nfour\n");
      const bad = await host.call("get_file_slice", { path: "a.txt", start_line: 9, end_line: 10 });
      assertMatch(textOf(bad), /^invalid_argument: .*has 4 lines/);
    },
  );

  await t.step("set_file_slice replaces, inserts and appends", async () => {
    await host.call("set_file_slice", {
      path: "a.txt",
      start_line: 2,
      end_line: 3,
      content: "TWO-THREE",
    });
    assertEquals(await Deno.readTextFile(file), "one\nTWO-THREE\nfour\n");
    await host.call("set_file_slice", {
      path: "a.txt",
      start_line: 1,
      end_line: 0,
      content: "zero\n",
    });
    assertEquals(await Deno.readTextFile(file), "zero\none\nTWO-THREE\nfour\n");
    await host.call("set_file_slice", {
      path: "a.txt",
      start_line: 5,
      end_line: 4,
      content: "five",
    });
    assertEquals(await Deno.readTextFile(file), "zero\none\nTWO-THREE\nfour\nfive\n");
  });

  await t.step("CRLF files keep CRLF", async () => {
    await Deno.writeTextFile(`${root.path}/w.txt`, "a\r\nb\r\nc\r\n");
    await host.call("set_file_slice", {
      path: "w.txt",
      start_line: 2,
      end_line: 2,
      content: "B1\nB2\n",
    });
    assertEquals(await Deno.readTextFile(`${root.path}/w.txt`), "a\r\nB1\r\nB2\r\nc\r\n");
  });
});

Deno.test("edit_file", async (t) => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });
  const file = `${root.path}/m.py`;
  // Write a file as another program would, then read it as the agent would (edits need a fresh read).
  const prepare = async (content: string | Uint8Array) => {
    if (typeof content === "string") await Deno.writeTextFile(file, content);
    else await Deno.writeFile(file, content);
    await host.call("read_file", { path: "m.py" });
  };

  await t.step("replaces a unique exact match", async () => {
    await prepare("def f():\n    return 1\n");
    const result = await host.call("edit_file", {
      path: "m.py",
      old_string: "return 1",
      new_string: "return 2",
    });
    assertFalse(result.isError);
    assertEquals(await Deno.readTextFile(file), "def f():\n    return 2\n");
  });

  await t.step("refuses a match that is not unique, listing the lines", async () => {
    await prepare("x = 1\ny = 2\nx = 1\n");
    const result = await host.call("edit_file", {
      path: "m.py",
      old_string: "x = 1",
      new_string: "x = 3",
    });
    assertMatch(textOf(result), /^ambiguous_match: .*2 times.*lines 1, 3/);
    assertEquals(await Deno.readTextFile(file), "x = 1\ny = 2\nx = 1\n");
    await host.call("edit_file", {
      path: "m.py",
      old_string: "x = 1",
      new_string: "x = 3",
      replace_all: true,
    });
    assertEquals(await Deno.readTextFile(file), "x = 3\ny = 2\nx = 3\n");
  });

  await t.step("no match shows the closest lines", async () => {
    await prepare("def compute_total(items):\n    return sum(items)\n");
    const result = await host.call("edit_file", {
      path: "m.py",
      old_string: "def compute_totals(items):",
      new_string: "def total(items):",
    });
    assertMatch(textOf(result), /^no_match: /);
    assertStringIncludes(textOf(result), "1| def compute_total(items):");
  });

  await t.step("keeps CRLF, BOM and Latin-1 bytes", async () => {
    await prepare(new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("a = 1\r\nb = 2\r\n")]));
    await host.call("edit_file", {
      path: "m.py",
      old_string: "a = 1\nb = 2",
      new_string: "a = 10\nb = 20",
    });
    assertEquals([...await Deno.readFile(file)], [
      0xef,
      0xbb,
      0xbf,
      ...enc.encode("a = 10\r\nb = 20\r\n"),
    ]);
    await prepare(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]));
    await host.call("edit_file", { path: "m.py", old_string: "x", new_string: "y" });
    assertEquals([...await Deno.readFile(file)], [0x63, 0x61, 0x66, 0xe9, 0x0a, 0x79, 0x0a]);
  });

  await t.step("keeps the file's mode", async () => {
    await prepare("#!/bin/sh\necho hi\n");
    await Deno.chmod(file, 0o751);
    await host.call("edit_file", { path: "m.py", old_string: "hi", new_string: "ho" });
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o751);
  });
});

Deno.test("write_file, create_directory, move_file, get_file_info, list_directory", async (t) => {
  await using root = await tempDir();
  await using host = await testHost({ roots: [root.path] });

  await t.step(
    "write_file creates, replaces, and needs create_parents for new directories",
    async () => {
      assertMatch(
        textOf(await host.call("write_file", { path: "n.txt", content: "a\n" })),
        /^Created/,
      );
      assertMatch(
        textOf(await host.call("write_file", { path: "n.txt", content: "b\n" })),
        /^Replaced/,
      );
      assertEquals(await Deno.readTextFile(`${root.path}/n.txt`), "b\n");
      assertMatch(
        textOf(await host.call("write_file", { path: "x/y/z.txt", content: "z" })),
        /^not_found: .*create_parents/,
      );
      await host.call("write_file", { path: "x/y/z.txt", content: "z", create_parents: true });
      assertEquals(await Deno.readTextFile(`${root.path}/x/y/z.txt`), "z");
    },
  );

  await t.step("create_directory makes parents and is idempotent", async () => {
    assertMatch(textOf(await host.call("create_directory", { path: "d/e/f" })), /^Created/);
    assert((await Deno.stat(`${root.path}/d/e/f`)).isDirectory);
    assertMatch(textOf(await host.call("create_directory", { path: "d/e/f" })), /already exists/);
  });

  await t.step("move_file renames and refuses to overwrite unless asked", async () => {
    await host.call("move_file", { source: "n.txt", destination: "d/n2.txt" });
    assertEquals(await Deno.readTextFile(`${root.path}/d/n2.txt`), "b\n");
    await Deno.writeTextFile(`${root.path}/o.txt`, "o");
    assertMatch(
      textOf(await host.call("move_file", { source: "o.txt", destination: "d/n2.txt" })),
      /^already_exists/,
    );
    await host.call("move_file", { source: "o.txt", destination: "d/n2.txt", overwrite: true });
    assertEquals(await Deno.readTextFile(`${root.path}/d/n2.txt`), "o");
  });

  await t.step("get_file_info describes text and binary files", async () => {
    await Deno.writeTextFile(`${root.path}/t.txt`, "a\r\nb\r\n");
    const text = await host.call("get_file_info", { path: "t.txt" });
    assertEquals(text.structuredContent?.text, {
      encoding: "utf-8",
      bom: false,
      eol: "CRLF",
      lines: 2,
    });
    await Deno.writeFile(`${root.path}/p.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    const binary = await host.call("get_file_info", { path: "p.png" });
    assertEquals(binary.structuredContent?.binary, "PNG image");
  });

  await t.step(
    "read_file refuses binary files with size and type, and large files with a hint",
    async () => {
      assertMatch(
        textOf(await host.call("read_file", { path: "p.png" })),
        /^binary_file: .*PNG image, 7 bytes/,
      );
      await Deno.writeTextFile(`${root.path}/big.txt`, "x".repeat(2 * 1024 * 1024));
      assertMatch(
        textOf(await host.call("read_file", { path: "big.txt" })),
        /^too_large: .*get_file_slice/,
      );
    },
  );

  await t.step(
    "list_directory is a compact table that pages and hides the state directory",
    async () => {
      const result = await host.call("list_directory", { path: "." });
      const text = textOf(result);
      assertStringIncludes(text, "[dir]  d/");
      assertStringIncludes(text, "[file] t.txt  6 B");
      assertFalse(text.includes(".toolhost"));
      const page = await host.call("list_directory", { path: ".", limit: 2 });
      assertEquals((page.structuredContent?.entries as unknown[]).length, 2);
      assertStringIncludes(textOf(page), "call again with offset 2");
    },
  );

  await t.step("invalid arguments are an isError result that says what is wrong", async () => {
    const result = await host.call("get_file_slice", { path: "t.txt", start_line: "x" });
    assertEquals(result.isError, true);
    assertMatch(textOf(result), /^invalid_argument: Cannot call get_file_slice: "start_line"/);
  });
});
