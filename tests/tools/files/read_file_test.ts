/**
 * `read_file` reads for a model: whole lines, a page at a time, bounded by
 * 2000 lines and by the reply bound, with a note that names the call for the
 * rest; the pages put together are the file, byte for byte.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, textOf } from "../../_helpers.ts";
import { launchHost } from "../../_mcp.ts";
import { DEFAULT_LIMITS } from "../../../security/policy.ts";
import { splitLines } from "../../../tools/_text.ts";
import { encodeText } from "../../../tools/_text_encode.ts";
import { takePage } from "../../../tools/files/read_file.ts";

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "const x = 1;",
  '  "quoted \\"string\\"",',
  "\tindented\twith tabs",
  "Питон и 🙂 emoji",
  "back\\slash \\n not a newline",
  "café ünïcödé",
  "ctrl\u0001char",
  "",
];

/**
 * About 400 KB of text: short lines of every kind JSON escapes, long
 * minified lines, a CRLF region with a lone CR, and no final newline.
 */
function bigText(): string {
  const next = random(12);
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < 400_000; i++) {
    const long = next() < 0.01;
    const body = long
      ? PIECES.join(" ").repeat(200 + Math.floor(next() * 300))
      : PIECES[Math.floor(next() * PIECES.length)]!.repeat(1 + Math.floor(next() * 4));
    const eol = i >= 3000 && i < 3500 ? (i === 3200 ? "\r" : "\r\n") : "\n";
    out.push(`${body}${eol}`);
    size += body.length + eol.length;
  }
  return `${out.join("")}last line without a newline`;
}

/** The offset a note tells the model to read on from, if any. */
function nextOffsetOf(note: string, path: string): number | undefined {
  const match = note.match(/read_file\(path="([^"]+)", offset=(\d+)\) for more\]$/);
  if (!match) return undefined;
  assertEquals(match[1], path);
  return Number(match[2]);
}

Deno.test("read_file over one launched host, each case on files of its own", async (t) => {
  // The cases need the same launch (one root, no options) and name files no other case reads, so
  // one host serves them all; every file is in place before it starts.
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "hello\n");
  const text = bigText();
  const bytes = new TextEncoder().encode(text);
  await Deno.writeFile(`${root.path}/big.txt`, bytes);
  const u16Text = Array.from({ length: 4500 }, (_, i) => `line ${i} Питон\r\n`).join("") + "end";
  const u16Bytes = encodeText(u16Text, { encoding: "utf-16le", bom: true });
  await Deno.writeFile(`${root.path}/u16.txt`, u16Bytes);
  const rows = Array.from({ length: 30 }, (_, i) => `row ${i + 1}\n`).join("");
  await Deno.writeTextFile(`${root.path}/rows.txt`, rows);
  await Deno.writeTextFile(`${root.path}/empty.txt`, "");
  const long = "x".repeat(DEFAULT_LIMITS.maxOutputChars * 2);
  await Deno.writeTextFile(`${root.path}/min.js`, `first\n${long}\nlast\n`);
  await using host = await launchHost({ roots: [root.path] });

  await t.step("read_file returns a small file whole, with no note", async () => {
    const result = await host.call("read_file", { path: "a.txt" });
    assertEquals(textOf(result), "hello\n");
    assertEquals(result.structuredContent, {
      path: "a.txt",
      start_line: 1,
      end_line: 1,
      total_lines: 1,
      truncated: false,
    });
    const outside = await host.call("read_file", { path: "/etc/passwd" });
    assertEquals(outside.isError, true);
    assertMatch(textOf(outside), /^path_denied: /);
  });

  await t.step(
    "read_file on a 400 KB file: whole lines, bounded, a note to go on, pages that reassemble it byte for byte",
    async () => {
      assert(bytes.length > 400_000 && bytes.length < 500_000, `${bytes.length} bytes`);
      const lines = splitLines(text);
      const pages: string[] = [];
      let offset: number | undefined = 1;
      let byBytes = 0;
      while (offset !== undefined) {
        const result = await host.session.call("read_file", { path: "big.txt", offset });
        assertFalse(result.isError, JSON.stringify(result).slice(0, 300));
        const size = new TextEncoder().encode(JSON.stringify(result)).length;
        assert(size <= DEFAULT_LIMITS.maxOutputChars, `a reply of ${size} bytes`);
        const [page, note] = (result.content as Array<{ text: string }>).map((block) => block.text);
        const data = result.structuredContent as Record<string, number>;
        assertEquals(data.start_line, offset);
        assert(data.end_line! - offset < 2000, "at most 2000 lines");
        assertEquals(page, lines.slice(offset - 1, data.end_line).join(""), "whole lines only");
        assertEquals(data.total_lines, lines.length);
        assertStringIncludes(note!, `lines ${offset}-${data.end_line} of ${lines.length}`);
        if (note!.includes("output limit reached")) byBytes++;
        const next = nextOffsetOf(note!, "big.txt");
        assertEquals(next, data.next_offset);
        pages.push(page!);
        offset = next;
      }
      assert(pages.length >= 3, `${pages.length} pages`);
      assert(byBytes >= 1, "some page was ended by the output limit, not the line count");
      assertEquals(new TextEncoder().encode(pages.join("")), bytes);
    },
  );

  await t.step(
    "read_file pages a UTF-16 file with a BOM and CRLF into its text, which encodes back to its bytes",
    async () => {
      const pages: string[] = [];
      let offset: number | undefined = 1;
      while (offset !== undefined) {
        const result = await host.call("read_file", { path: "u16.txt", offset });
        pages.push((result.content[0] as { text: string }).text);
        offset = (result.structuredContent as { next_offset?: number }).next_offset;
      }
      assertEquals(pages.length, 3);
      assertEquals(pages.join(""), u16Text);
      assertEquals(encodeText(pages.join(""), { encoding: "utf-16le", bom: true }), u16Bytes);
    },
  );

  await t.step("read_file takes offset, limit and line_numbers", async (t) => {
    await t.step("a limit gives that many lines and a note that repeats it", async () => {
      const result = await host.call("read_file", { path: "rows.txt", offset: 10, limit: 5 });
      assertEquals(
        (result.content[0] as { text: string }).text,
        "row 10\nrow 11\nrow 12\nrow 13\nrow 14\n",
      );
      assertEquals(
        (result.content[1] as { text: string }).text,
        '[lines 10-14 of 30; read_file(path="rows.txt", offset=15, limit=5) for more]',
      );
      assertEquals(result.structuredContent?.next_offset, 15);
      assertEquals(result.structuredContent?.truncated, true);
    });

    await t.step("the last page says it is the end of the file", async () => {
      const result = await host.call("read_file", { path: "rows.txt", offset: 29 });
      assertEquals(textOf(result), "row 29\nrow 30\n\n[lines 29-30 of 30; end of file]");
      assertEquals(result.structuredContent?.truncated, false);
      assertEquals(result.structuredContent?.next_offset, undefined);
    });

    await t.step("line numbers: a right-aligned number and a tab, like cat -n", async () => {
      const result = await host.call("read_file", {
        path: "rows.txt",
        offset: 9,
        limit: 2,
        line_numbers: true,
      });
      assertEquals((result.content[0] as { text: string }).text, "     9\trow 9\n    10\trow 10\n");
      assertStringIncludes(textOf(result), "offset=11, limit=2, line_numbers=true)");
    });

    await t.step("an offset past the end is an error; an empty file says so", async () => {
      const bad = await host.call("read_file", { path: "rows.txt", offset: 31 });
      assertEquals(bad.isError, true);
      assertMatch(
        textOf(bad),
        /^invalid_argument: Cannot read from line 31: "rows.txt" has 30 lines/,
      );
      const empty = await host.call("read_file", { path: "empty.txt" });
      assertFalse(empty.isError);
      assertEquals(textOf(empty), "\n[empty file: 0 lines]");
    });
  });

  await t.step(
    "read_file cuts only a line longer than the whole bound, says so and goes on after it",
    async () => {
      const first = await host.call("read_file", { path: "min.js" });
      assertEquals((first.content[0] as { text: string }).text, "first\n");
      assertStringIncludes(textOf(first), "(output limit reached)");
      const cut = await host.call("read_file", { path: "min.js", offset: 2 });
      const shown = (cut.content[0] as { text: string }).text;
      assert(shown.length > 100_000 && long.startsWith(shown), `${shown.length} characters shown`);
      const note = (cut.content[1] as { text: string }).text;
      assertMatch(
        note,
        new RegExp(`^\\[line 2 of 3 is ${long.length} characters, cut after ${shown.length} `),
      );
      assertStringIncludes(note, 'read_file(path="min.js", offset=3) goes on after it');
      assertEquals(cut.structuredContent?.truncated, true);
      assertEquals(cut.structuredContent?.next_offset, 3);
      const rest = await host.call("read_file", { path: "min.js", offset: 3 });
      assertEquals((rest.content[0] as { text: string }).text, "last\n");
    },
  );
});

Deno.test("takePage counts bytes as the reply's JSON does", () => {
  const next = random(7);
  const chars = ["a", '"', "\\", "\t", "\u0001", "é", "€", "🙂", "\ud800", "\r\n", "\n"];
  const lines = splitLines(
    Array.from({ length: 3000 }, () => chars[Math.floor(next() * chars.length)]).join(""),
  );
  for (const maxBytes of [1, 17, 500, 4096]) {
    const page = takePage(lines, {
      path: "p",
      offset: 1,
      limit: 10_000,
      maxBytes,
      lineNumbers: false,
    });
    const json = new TextEncoder().encode(JSON.stringify(page.text)).length - 2;
    assertEquals(page.bytes, json, `maxBytes ${maxBytes}`);
    assert(page.bytes <= maxBytes, `${page.bytes} > ${maxBytes}`);
    if (page.cut === undefined) {
      assertEquals(page.text, lines.slice(0, page.end).join(""));
      const following = lines[page.end];
      if (following !== undefined) {
        const more = new TextEncoder().encode(JSON.stringify(page.text + following)).length - 2;
        assert(more > maxBytes, "the page stopped only when the next line did not fit");
      }
    }
  }
});
