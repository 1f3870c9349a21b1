/**
 * Stale-read protection: an edit of a file that changed since the agent read
 * it is refused (the file stays as it is) until the agent reads it again, and
 * the next result tells the agent what changed.
 */

import {
  assert,
  assertEquals,
  assertFalse,
  assertMatch,
  assertStringIncludes,
} from "../../_assert.ts";
import { tempDir, testHost, textOf } from "../../_helpers.ts";
import { lineDiff, ReadTracker } from "../../../host/state/stale_reads.ts";

Deno.test("stale reads: an outside change between a read and an edit is refused, and reported", async (t) => {
  await using root = await tempDir();
  const file = `${root.path}/a.py`;
  await Deno.writeTextFile(file, "x = 1\ny = 2\nz = 3\n");
  await using host = await testHost({ roots: [root.path] });
  const s1 = { session: "s1", client: "test" };

  await t.step("own edits after a read are not stale", async () => {
    await host.call("read_file", { path: "a.py" }, s1);
    const first = await host.call("edit_file", {
      path: "a.py",
      old_string: "x = 1",
      new_string: "x = 10",
    }, s1);
    assertFalse(first.isError, textOf(first));
    const second = await host.call("edit_file", {
      path: "a.py",
      old_string: "y = 2",
      new_string: "y = 20",
    }, s1);
    assertFalse(second.isError, textOf(second));
    assertFalse(textOf(second).includes("[FILES UPDATED]"));
  });

  await t.step(
    "a change by another program is refused, the file is unchanged, and the next result says what changed",
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 10)); // a distinct mtime
      await Deno.writeTextFile(file, "x = 10\ny = 20\nz = 300\n");
      const refused = await host.call("edit_file", {
        path: "a.py",
        old_string: "x = 10",
        new_string: "x = 11",
      }, s1);
      assertEquals(refused.isError, true);
      assertMatch(textOf(refused), /^stale_read: "a.py" changed since you last read it/);
      assertEquals(await Deno.readTextFile(file), "x = 10\ny = 20\nz = 300\n");
      assertStringIncludes(textOf(refused), "[FILES UPDATED]");
      assertStringIncludes(textOf(refused), "- z = 3");
      assertStringIncludes(textOf(refused), "+ z = 300");
      const slice = await host.call("set_file_slice", {
        path: "a.py",
        start_line: 1,
        end_line: 1,
        content: "x = 12",
      }, s1);
      assertMatch(textOf(slice), /^stale_read: /);
      assertFalse(textOf(slice).includes("[FILES UPDATED]"), "each change is reported once");
    },
  );

  await t.step("after a fresh read the edit works; force overrides", async () => {
    await host.call("get_file_slice", { path: "a.py", start_line: 1, end_line: 3 }, s1);
    const edited = await host.call("edit_file", {
      path: "a.py",
      old_string: "z = 300",
      new_string: "z = 30",
    }, s1);
    assertFalse(edited.isError, textOf(edited));
    await Deno.writeTextFile(file, "x = 10\ny = 20\nz = 31\n");
    const forced = await host.call(
      "edit_file",
      { path: "a.py", old_string: "z = 31", new_string: "z = 32", force: true },
      s1,
    );
    assertFalse(forced.isError, textOf(forced));
    assertEquals(await Deno.readTextFile(file), "x = 10\ny = 20\nz = 32\n");
  });

  await t.step("another session's edit is a change by other means", async () => {
    await host.call("read_file", { path: "a.py" }, s1);
    await host.call("read_file", { path: "a.py" }, { session: "s2", client: "test" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const other = await host.call("edit_file", {
      path: "a.py",
      old_string: "y = 20",
      new_string: "y = 21",
    }, {
      session: "s2",
      client: "test",
    });
    assertFalse(other.isError, textOf(other));
    const refused = await host.call("edit_file", {
      path: "a.py",
      old_string: "x = 10",
      new_string: "x = 9",
    }, s1);
    assertMatch(textOf(refused), /^stale_read: /);
    assert(textOf(refused).includes("+ y = 21"));
  });

  await t.step("a changed file that the call reads again is not reported; others are", async () => {
    await Deno.writeTextFile(`${root.path}/b.py`, "b = 1\n");
    await host.call("read_file", { path: "a.py" }, s1);
    await host.call("read_file", { path: "b.py" }, s1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await Deno.writeTextFile(file, "x = 1\n");
    await Deno.writeTextFile(`${root.path}/b.py`, "b = 2\n");
    const again = await host.call("read_file", { path: "a.py" }, s1);
    assertEquals(again.content[0], { type: "text", text: "x = 1\n" });
    assertEquals(again.content.length, 2, "one notice, for b.py only");
    assertStringIncludes(textOf(again), "b.py:");
    assertFalse(textOf(again).includes("a.py:"), textOf(again));
  });
});

Deno.test("stale reads: what the session moved is followed to its new path; moves by others are reported", async () => {
  await using root = await tempDir();
  await Deno.mkdir(`${root.path}/dir`);
  const files: [string, string][] = [["a.py", "a = 1\n"], ["c.py", "c = 1\n"], [
    "dir/x.py",
    "x = 1\n",
  ]];
  for (const [name, text] of files) {
    await Deno.writeTextFile(`${root.path}/${name}`, text);
  }
  await using host = await testHost({ roots: [root.path] });
  const s1 = { session: "s1", client: "test" };
  for (const path of ["a.py", "c.py", "dir/x.py"]) await host.call("read_file", { path }, s1);

  const file = await host.call("move_file", { source: "a.py", destination: "b.py" }, s1);
  assertFalse(file.isError, textOf(file));
  const folder = await host.call("move_file", { source: "dir", destination: "lib" }, s1);
  assertFalse(folder.isError, textOf(folder));
  const after = await host.call("read_file", { path: "c.py" }, s1);
  assertEquals(after.content.length, 1, textOf(after));
  // The moved file is known at its new path: an edit there is checked against what was read.
  const edited = await host.call("edit_file", {
    path: "b.py",
    old_string: "a = 1",
    new_string: "a = 2",
  }, s1);
  assertFalse(edited.isError, textOf(edited));

  await new Promise((resolve) => setTimeout(resolve, 10)); // a distinct mtime
  await Deno.writeTextFile(`${root.path}/lib/x.py`, "x = 2\n");
  const refused = await host.call("edit_file", {
    path: "lib/x.py",
    old_string: "x = 2",
    new_string: "x = 3",
  }, s1);
  assertMatch(textOf(refused), /^stale_read: "lib\/x.py" changed since you last read it/);
  assertStringIncludes(textOf(refused), "+ x = 2");

  await Deno.rename(`${root.path}/c.py`, `${root.path}/d.py`);
  const s2 = { session: "s2", client: "test" };
  const other = await host.call("move_file", { source: "b.py", destination: "e.py" }, s2);
  assertFalse(other.isError, textOf(other));
  const told = await host.call("get_file_info", { path: "e.py" }, s1);
  assertStringIncludes(textOf(told), "[FILES UPDATED]");
  assertStringIncludes(textOf(told), "c.py: deleted");
  assertStringIncludes(textOf(told), "b.py: deleted");
});

Deno.test("stale reads: the notice is a line diff, an edit at line 1 and one at line 1000 two small hunks", async () => {
  await using root = await tempDir();
  const lines = Array.from({ length: 1200 }, (_, i) => `line ${i + 1}`);
  await Deno.writeTextFile(`${root.path}/big.txt`, `${lines.join("\n")}\n`);
  await Deno.writeTextFile(`${root.path}/other.txt`, "other\n");
  await using host = await testHost({ roots: [root.path] });
  await host.call("read_file", { path: "big.txt" });
  lines[0] = "first changed";
  lines[999] = "thousandth changed";
  await new Promise((resolve) => setTimeout(resolve, 10)); // a distinct mtime
  await Deno.writeTextFile(`${root.path}/big.txt`, `${lines.join("\n")}\n`);
  const result = await host.call("read_file", { path: "other.txt" });
  const notice = textOf(result).split("[FILES UPDATED]")[1] ?? "";
  assertEquals(
    notice,
    " Files you read changed outside this session since:\nbig.txt:\n" +
      "@@ -1,1 +1,1 @@\n- line 1\n+ first changed\n" +
      "@@ -1000,1 +1000,1 @@\n- line 1000\n+ thousandth changed",
  );
});

Deno.test("stale reads: hunk headers follow unified diff for insertions and deletions; line endings alone are said", () => {
  assertEquals(lineDiff("a\nb\nc\n", "a\nx\nb\nc\n"), "@@ -1,0 +2,1 @@\n+ x");
  assertEquals(lineDiff("a\nb\nc\n", "a\nc\n"), "@@ -2,1 +1,0 @@\n- b");
  assertEquals(lineDiff("a\nb\n", "x\na\nb\n"), "@@ -0,0 +1,1 @@\n+ x");
  assertEquals(lineDiff("a\nb\n", "a\r\nb\r\n"), "line endings changed (the lines are the same)");
});

Deno.test("stale reads: a session that ended is forgotten, what it read and its notices, others kept", () => {
  const reads = new ReadTracker("/srv/project");
  const seen = (path: string) => ({
    reads: [{ path, fingerprint: `fp-${path}`, text: "one\n", mtime: 1, size: 4 }],
    writes: [],
  });
  reads.record("gone", seen("a.txt"));
  reads.record("kept", seen("b.txt"));
  reads.changed("gone", [{
    path: "a.txt",
    fingerprint: "fp-new",
    mtime: 2,
    size: 4,
    text: "two\n",
  }]);
  assertEquals(reads.watch("gone").map((file) => file.path), ["a.txt"]);
  reads.forget("gone");
  assertEquals(reads.watch("gone"), []);
  assertEquals(reads.expectations("gone", { path: "a.txt" }, ["path"]), undefined);
  assertEquals(reads.watch("kept").map((file) => file.path), ["b.txt"]);
});
